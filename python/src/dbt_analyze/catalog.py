"""What dbt-spark's session knows without a statement: whether a table exists, whether its file
list is cached, how many cores its Spark has. Each answers None (or the cautious answer) on
other connections, whose macros ask with a statement instead."""

from __future__ import annotations

from typing import Any

from dbt_analyze.session_submission import adapter_spark, is_session


def dbt_analyze_table_exists(adapter: Any, schema: str, table: str) -> bool | None:
    """Whether dbt-spark's session catalog has the table (no statement: a statement that fails
    makes pyspark log an ERROR line, alarming on a first run where the answer is simply no); None
    on other connections, which must ask with a statement."""
    if not is_session(adapter):
        return None
    quoted = ".".join("`" + part.replace("`", "``") + "`" for part in (schema, table))
    return bool(adapter_spark(adapter).catalog.tableExists(quoted))


def dbt_analyze_may_hold_old_files(adapter: Any, schema: str, table: str) -> bool:
    """False only when dbt-spark's session has no file list of the table: its catalog caches a
    table's relation, with its files, from the first read until a write or REFRESH TABLE. A scan
    then lists the files anew, and a REFRESH TABLE before it would be a statement for nothing."""
    if not is_session(adapter):
        return True
    spark = adapter_spark(adapter)
    key = spark._jvm.org.apache.spark.sql.catalyst.QualifiedTableName("spark_catalog", schema.lower(), table.lower())
    return spark._jsparkSession.sessionState().catalog().getCachedTable(key) is not None


def dbt_analyze_parallelism(adapter: Any) -> int | None:
    """The session's Spark's default parallelism (its cores, locally); None on other connections."""
    if not is_session(adapter):
        return None
    return int(adapter_spark(adapter).sparkContext.defaultParallelism)
