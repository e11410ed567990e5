"""Publishing statistics into Spark's catalog, as Spark's own ANALYZE TABLE stores them.

Spark refuses ``spark.sql.statistics.*`` table properties from SQL, so the values go in through
the JVM catalog API (``SessionCatalog.alterTableStats``) of the SparkSession that lives in dbt's
own process (dbt-spark ``method: session``). The package's macros call it as
``adapter.dbt_analyze_publish_statistics(payload_json)`` (below);
on other connections that call answers with the reason it cannot publish, and the macros fall back.

A payload (what the macros send; min/max as Spark's external strings, bins as doubles)::

    {"schema": "analytics", "table": "orders", "row_count": 3, "size_bytes": 1024,
     "columns": [{"name": "amount", "null_count": 0, "distinct_count": 3, "min": "1.0",
                  "max": "9.5", "avg_len": 8, "max_len": 8,
                  "histogram": {"height": 1.5, "bins": [[1.0, 2.0, 2], [2.0, 9.5, 1]]}}]}
"""

from __future__ import annotations

import json
from typing import Any, Dict, List, Optional

from dbt_analyze.selectivity import bins_around
from dbt_analyze.session_submission import adapter_spark, is_session


def column_stat_map(column: Dict[str, Any], histogram: Optional[str]) -> Dict[str, str]:
    """The ``<column>.<key>`` properties Spark's ``CatalogColumnStat.fromMap`` reads.

    >>> sorted(column_stat_map({"name": "a", "null_count": 0, "distinct_count": 2, "min": "1",
    ...                         "max": "5", "avg_len": 4, "max_len": 4}, None).items())[:3]
    [('a.avgLen', '4'), ('a.distinctCount', '2'), ('a.max', '5')]
    """
    name = column["name"]
    values = {"version": "2", "distinctCount": column.get("distinct_count"), "nullCount": column.get("null_count"),
              "min": column.get("min"), "max": column.get("max"), "avgLen": column.get("avg_len"),
              "maxLen": column.get("max_len"), "histogram": histogram}
    return {f"{name}.{key}": str(value) for key, value in values.items() if value is not None}


def cbo_bin_distinct_counts(distinct_counts: List[float]) -> List[int]:
    """The bins' distinct counts as Spark's CBO is to read them: each the mean over the bins within
    the equality window around it. The CBO estimates `x = v` as v's bin's rows over its distinct
    count; a single bin's estimated distinct count is noisier than the mean around it, which is
    what the package's own estimate uses (:func:`dbt_analyze.selectivity.histogram_equality_share`).

    >>> cbo_bin_distinct_counts([10] * 100 + [40] + [10] * 100)[97:104]
    [10, 16, 16, 16, 16, 16, 10]
    """
    return [max(round(sum(window) / len(window)), 1)
            for window in (bins_around(distinct_counts, i, i) for i in range(len(distinct_counts)))]


def publish_statistics(spark: Any, payload: Dict[str, Any]) -> None:
    """Write the payload's table and column statistics into the catalog entry of its table."""
    jvm = spark._jvm
    catalyst = jvm.org.apache.spark.sql.catalyst
    logical = catalyst.plans.logical
    catalog = spark._jsparkSession.sessionState().catalog()
    identifier = catalyst.TableIdentifier.apply(payload["table"], jvm.scala.Some(payload["schema"]))
    to_scala = jvm.org.apache.spark.api.python.PythonUtils.toScalaMap

    column_stats = {}
    for column in payload["columns"]:
        histogram = None
        if column.get("histogram"):
            bins: List[List[float]] = column["histogram"]["bins"]
            array = spark.sparkContext._gateway.new_array(logical.HistogramBin, len(bins))
            distinct_counts = cbo_bin_distinct_counts([ndv for _, _, ndv in bins])
            for i, ((lower, upper, _), ndv) in enumerate(zip(bins, distinct_counts)):
                array[i] = logical.HistogramBin(float(lower), float(upper), ndv)
            histogram = logical.HistogramSerializer.serialize(
                logical.Histogram(float(column["histogram"]["height"]), array)
            )
        properties = column_stat_map(column, histogram)
        stat = catalyst.catalog.CatalogColumnStat.fromMap(payload["table"], column["name"], to_scala(properties))
        if stat.isDefined():
            column_stats[column["name"]] = stat.get()

    statistics = _catalog_statistics(jvm, payload, to_scala(column_stats))
    catalog.alterTableStats(identifier, jvm.scala.Some(statistics))


def _big_option(jvm: Any, value: Any) -> Any:
    """A JVM ``Option[BigInt]``. py4j turns every ``BigInt`` it sees into a Python int and cannot
    turn one back, so the value is parsed on the JVM side (by ``CatalogColumnStat.fromMap``) and
    stays there, wrapped in its Option."""
    to_scala = jvm.org.apache.spark.api.python.PythonUtils.toScalaMap
    stat = jvm.org.apache.spark.sql.catalyst.catalog.CatalogColumnStat.fromMap(
        "_", "_", to_scala({"_.version": "2", "_.distinctCount": str(value)}))
    return stat.get().distinctCount()


def _catalog_statistics(jvm: Any, payload: Dict[str, Any], column_stats: Any) -> Any:
    """``CatalogStatistics(sizeInBytes: BigInt, rowCount: Option[BigInt], colStats)``, built by
    reflection from an argument array assembled on the JVM side (see ``_big_option``)."""
    size = _big_option(jvm, payload.get("size_bytes") or 0)
    row_count = (
        _big_option(jvm, payload["row_count"]) if payload.get("row_count") is not None else jvm.scala.Option.empty()
    )
    any_ref = getattr(getattr(jvm.scala.reflect, "ClassTag$"), "MODULE$").AnyRef()
    arguments = size.toList().appended(row_count).appended(column_stats).toArray(any_ref)
    cls = jvm.java.lang.Class.forName("org.apache.spark.sql.catalyst.catalog.CatalogStatistics")
    constructor = next(c for c in cls.getConstructors() if c.getParameterCount() == 3)
    return constructor.newInstance(arguments)


# The adapter methods of this concept (registered by dbt_analyze.adapter_methods).


def dbt_analyze_publish_statistics(adapter: Any, payload_json: str) -> str:
    if not is_session(adapter):
        return "not a session connection"
    publish_statistics(adapter_spark(adapter), json.loads(payload_json))
    return "published"
