"""Hybrid histograms (PostgreSQL's): per analyzed column, its most common values listed apart
(kind 'mcv') and equi-height bins over the other rows (kind 'bin').

A Python model of the package, enabled by the var dbt_analyze_histogram: {kind: hybrid}. It runs
on Spark in the embedded default (the library's session submission) or on Databricks, and reads
only the current statistics (no rescan): each column's equi-height histogram, top values and
counts. Refresh after analyzing: dbt run --select dbt_analyze.column_histograms_hybrid
"""


def model(dbt, session):
    dbt.config(materialized="table", file_format="parquet")
    from dbt_analyze.hybrid_histogram import hybrid_rows

    current = "partition_spec = ''"
    histograms = [r.asDict() for r in dbt.ref("column_histograms").where(current).orderBy("bin").collect()]
    top_values = [r.asDict() for r in dbt.ref("column_top_values").where(current).collect()]
    columns = [r.asDict() for r in dbt.ref("column_statistics").where(current).collect()]
    tables = [r.asDict() for r in dbt.ref("table_statistics").where(current).collect()]
    schema = ("table_schema string, table_name string, partition_spec string, column_name string, kind string, "
              "bin int, lower_bound string, upper_bound string, row_count double, distinct_count bigint")
    return session.createDataFrame(hybrid_rows(tables, columns, histograms, top_values), schema=schema)
