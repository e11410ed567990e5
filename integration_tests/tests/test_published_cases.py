"""Published cases of other engines' ANALYZE test suites, replayed through dbt on Spark.

Each case takes the data of a public test and checks our statistics against the values that test
publishes (restated here as plain numbers; the sources are named per case):
- Spark: `StatisticsCollectionTestBase` (sql/core), the three-row table of every type and its
  expected column statistics;
- Flink: `AnalyzeTableITCase` (batch), the table partitioned by (e, a) over `TestData.data5`:
  partition specs, full and partial, and their expected partition and column statistics;
- Greenplum: `incremental_analyze` (regress), leaf statistics merged into root statistics, a
  union of HLL sketches, and a partition split after the first ANALYZE.
Where we differ from an engine on purpose, the case says so.
"""

import math
from decimal import Decimal

import pytest
from conftest import analyze, column_stats, rows, table_stats


def top_values(spark, table: str, column: str, partition_spec: str = "") -> dict[str, int]:
    schema, name = table.split(".")
    return {r["value"]: r["frequency"] for r in rows(spark, f"""
        select value, frequency from analytics_stats.column_top_values
        where table_schema = '{schema}' and table_name = '{name}' and column_name = '{column}'
          and partition_spec = '{partition_spec}'""")}


def last_run(spark, table: str) -> dict:
    schema, name = table.split(".")
    return rows(spark, f"""select * from analytics_stats.analyze_runs where table_schema = '{schema}' and table_name = '{name}'
                           order by started_at desc limit 1""")[0]


# --- Spark: StatisticsCollectionTestBase ------------------------------------------------------

SPARK_TABLE = "analytics.spark_published_types"
# column -> (distinct, min, max, nulls, avgLen as Spark stores it (rounded up), maxLen)
SPARK_EXPECTED = {
    "cbool": (2, "false", "true", 1, 1, 1),
    "cbyte": (2, "1", "2", 1, 1, 1),
    "cshort": (2, "1", "30000", 1, 2, 2),
    "cint": (2, "1", "40000000", 1, 4, 4),
    "clong": (2, "1", "5536453629", 1, 8, 8),
    "cdouble": (2, "1.123456789", "6.987654321", 1, 8, 8),
    "cfloat": (2, "1.12345", "7.54321", 1, 4, 4),
    "cdecimal": (2, "-1.756893400357024346", "8.4376864556435654231524645784930122085e19", 1, 16, 16),
    "cstring": (2, None, None, 1, 20, 25),
    "cbinary": (2, None, None, 1, 12, 22),
    "cdate": (2, "2016-05-08", "2016-05-09", 1, 4, 4),
    "ctimestamp": (2, "2016-05-08 00:00:01.123456", "2016-05-09 00:00:02.987654", 1, 8, 8),
    "ctimestamp_ntz": (2, "2016-05-08 00:00:01.123456", "2016-05-09 00:00:02.987654", 1, 8, 8),
}


@pytest.fixture(scope="module")
def spark_published(spark, dbt):
    spark.sql(f"drop table if exists {SPARK_TABLE}")
    spark.sql(f"""
        create table {SPARK_TABLE} (
          cbool boolean, cbyte tinyint, cshort smallint, cint int, clong bigint, cdouble double, cfloat float,
          cdecimal decimal(38, 18), cstring string, cbinary binary, cdate date, ctimestamp timestamp,
          ctimestamp_ntz timestamp_ntz, carray array<int>)
        using parquet""")
    spark.sql(f"""
        insert into {SPARK_TABLE} values
          (false, 1, 1, 1, 1, 1.123456789, 1.12345, -1.756893400357024346, 'string escrito en español', X'6231',
           date'2016-05-08', timestamp'2016-05-08 00:00:01.123456', timestamp_ntz'2016-05-08 00:00:01.123456', null),
          (true, 2, 30000, 40000000, 5536453629, 6.987654321, 7.54321, 84376864556435654231.524645784930122085,
           '日本語で書かれたstring', cast('a string full of bytes' as binary), date'2016-05-09',
           timestamp'2016-05-09 00:00:02.987654', timestamp_ntz'2016-05-09 00:00:02.987654', null),
          (null, null, null, null, null, null, null, null, null, null, null, null, null, null)""")
    result = analyze(dbt, statement=f"ANALYZE TABLE {SPARK_TABLE} COMPUTE STATISTICS FOR ALL COLUMNS")
    assert result.success, result.error
    return column_stats(spark, SPARK_TABLE)


@pytest.mark.parametrize("column", list(SPARK_EXPECTED))
def test_spark_statistics_collection_three_rows_of_every_type(spark_published, column):
    distinct, low, high, nulls, avg_len, max_len = SPARK_EXPECTED[column]
    ours = spark_published[column]
    assert (ours["distinct_count"], ours["null_count"], math.ceil(ours["avg_len"]), ours["max_len"]) == (distinct, nulls, avg_len, max_len)
    if column == "cdecimal":  # Spark's expectation is written as a BigDecimal (an exponent); the value is the same
        assert (Decimal(ours["min_value"]), Decimal(ours["max_value"])) == (Decimal(low), Decimal(high))
    elif low is not None:
        assert (ours["min_value"], ours["max_value"]) == (low, high)


def test_spark_statistics_collection_string_and_boolean_details(spark_published):
    # avgLen 20 and 12 are rounded up by Spark; ours keeps the mean of the lengths (in characters for strings)
    assert spark_published["cstring"]["avg_len"] == (25 + 14) / 2
    assert spark_published["cbinary"]["avg_len"] == (2 + 22) / 2
    assert (spark_published["cbool"]["true_count"], spark_published["cbool"]["false_count"]) == (1, 1)
    # The array column has no statistic Spark collects (its ANALYZE refuses it); ours counts its nulls.
    assert spark_published["carray"]["null_count"] == 3


# --- Flink: AnalyzeTableITCase, PartitionTable (partitioned by e, a) over TestData.data5 ----------

FLINK_TABLE = "analytics.flink_partition_table"
FLINK_DATA5 = [  # (a, b, c, d, e)
    (1, 1, 0, "Hallo", 1), (2, 2, 1, "Hallo Welt", 2), (2, 3, 2, "Hallo Welt wie", 1), (3, 4, 3, "Hallo Welt wie gehts?", 2),
    (3, 5, 4, "ABC", 2), (3, 6, 5, "BCD", 3), (4, 7, 6, "CDE", 2), (4, 8, 7, "DEF", 1), (4, 9, 8, "EFG", 1), (4, 10, 9, "FGH", 2),
    (5, 11, 10, "GHI", 1), (5, 12, 11, "HIJ", 3), (5, 13, 12, "IJK", 3), (5, 14, 13, "JKL", 2), (5, 15, 14, "KLM", 2)]
# Flink's partition row counts (testPartitionTableWithoutColumns)
FLINK_PARTITION_ROWS = {"e=1/a=1": 1, "e=1/a=2": 1, "e=1/a=4": 2, "e=1/a=5": 1, "e=2/a=2": 1,
                        "e=2/a=3": 2, "e=2/a=4": 2, "e=2/a=5": 2, "e=3/a=3": 1, "e=3/a=5": 2}


@pytest.fixture(scope="module")
def flink_table(spark):
    spark.sql(f"drop table if exists {FLINK_TABLE}")
    spark.sql(f"create table {FLINK_TABLE} (b bigint, c int, d string, e bigint, a int) using parquet partitioned by (e, a)")
    values = ", ".join(f"({b}, {c}, '{d}', {e}, {a})" for a, b, c, d, e in FLINK_DATA5)
    spark.sql(f"insert into {FLINK_TABLE} values {values}")
    return FLINK_TABLE


def test_flink_full_partition_path_analyzes_that_partition_alone(spark, dbt, flink_table):
    """testPartitionTableWithFullPartitionPath: partition(e=2, a=5) for all columns."""
    result = analyze(dbt, statement=f"analyze table {flink_table} partition(e=2, a=5) compute statistics for all columns")
    assert result.success, result.error
    assert last_run(spark, flink_table)["targets_scanned"] == 1
    assert table_stats(spark, flink_table)["e=2/a=5"]["row_count"] == 2
    ours = column_stats(spark, flink_table, "e=2/a=5")
    # Flink: b Long(14, 15, ndv 2, nulls 0), c Long(13, 14, 2, 0), d String(maxLen 3, avgLen 3.0, ndv 2, nulls 0)
    assert [(ours[c]["min_value"], ours[c]["max_value"], ours[c]["distinct_count"], ours[c]["null_count"]) for c in "bc"] == [
        ("14", "15", 2, 0), ("13", "14", 2, 0)]
    assert (ours["d"]["max_len"], ours["d"]["avg_len"], ours["d"]["distinct_count"], ours["d"]["null_count"]) == (3, 3.0, 2, 0)
    # Flink also lists the partition columns a and e (5..5, 2..2): ours keeps them as the spec itself.
    assert set(ours) == {"b", "c", "d"}


def test_flink_partial_partition_path_analyzes_the_matching_partitions(spark, dbt, flink_table):
    """testPartitionTableWithPartialPartitionPath: partition(e=2, a) selects e=2 only."""
    result = analyze(dbt, statement=f"analyze table {flink_table} partition(e=2, a) compute statistics")
    assert result.success, result.error
    found = {spec: r["row_count"] for spec, r in table_stats(spark, flink_table).items() if spec}
    assert found == {spec: n for spec, n in FLINK_PARTITION_ROWS.items() if spec.startswith("e=2/")}


def test_flink_partition_keys_in_any_order_analyze_every_partition(spark, dbt, flink_table):
    """testPartitionTableWithoutColumns: partition(a, e) — strict order is not required."""
    result = analyze(dbt, statement=f"analyze table {flink_table} partition(a, e) compute statistics for columns b, c, d")
    assert result.success, result.error
    stats = table_stats(spark, flink_table)
    assert {spec: r["row_count"] for spec, r in stats.items() if spec} == FLINK_PARTITION_ROWS
    assert stats[""]["row_count"] == 15
    table = column_stats(spark, flink_table)
    assert (table["b"]["min_value"], table["b"]["max_value"], table["b"]["distinct_count"]) == ("1", "15", 15)
    assert table["d"]["max_len"] == len("Hallo Welt wie gehts?")


def test_flink_errors_name_the_problem(spark, dbt, flink_table):
    """testNonPartitionTableWithPartition, testPartitionTableWithColumnsNotExisted; Flink analyzes
    nothing for partition(e=10, a), ours says that no partition matches (an unknown partition value
    is an error here)."""
    spark.sql("create table if not exists analytics.flink_non_partition_table (a int) using parquet")
    cases = [
        ("analyze table analytics.flink_non_partition_table partition(a) compute statistics", "is not partitioned"),
        (f"analyze table {flink_table} partition(e, a) compute statistics for columns not_existed_column",
         "unknown column 'not_existed_column'"),
        (f"analyze table {flink_table} partition(d) compute statistics", "unknown partition column 'd'"),
        (f"analyze table {flink_table} partition(e=10, a) compute statistics", "no partition of analytics.flink_partition_table matches"),
    ]
    for statement, message in cases:
        result = analyze(dbt, statement=statement)
        assert not result.success and message in result.error, (statement, result.error)


# --- Greenplum: incremental_analyze --------------------------------------------------------------

def test_greenplum_leaf_statistics_merge_into_the_root(spark, dbt):
    """'Merge stats from both partitions': foo(a, b, c) = (i, i % 6, i % 6) for i in 1..100, range
    partitions b in [0, 3) and [3, 6), each analyzed alone. Greenplum: each leaf has n_distinct 3 and
    most common values {1, 2, 0} with frequencies {0.34, 0.34, 0.32}; the root has n_distinct 6
    for b and c and -1 (every row distinct) for a."""
    table = "analytics.gp_merge_leaves"
    spark.sql(f"drop table if exists {table}")
    spark.sql(f"create table {table} (a int, b int, c int, prt int) using parquet partitioned by (prt)")
    spark.sql(f"insert into {table} select id, id % 6, id % 6, if(id % 6 < 3, 1, 2) from range(1, 101)")
    for prt in (1, 2):
        result = analyze(dbt, relation=table, partition={"prt": prt}, columns="all")
        assert result.success, result.error
        assert last_run(spark, table)["targets_scanned"] == 1
    leaf = column_stats(spark, table, "prt=1")
    assert (leaf["b"]["distinct_count"], leaf["c"]["distinct_count"]) == (3, 3)
    assert {v: round(f / 50, 2) for v, f in top_values(spark, table, "c", "prt=1").items()} == {"1": 0.34, "2": 0.34, "0": 0.32}
    root = column_stats(spark, table)
    assert (root["a"]["distinct_count"], root["b"]["distinct_count"], root["c"]["distinct_count"]) == (100, 6, 6)
    assert top_values(spark, table, "c") == {"0": 16, "1": 17, "2": 17, "3": 17, "4": 17, "5": 16}


def test_greenplum_union_of_leaf_sketches_counts_shared_values_once(spark, dbt):
    """'Test ANALYZE full scan HLL': leaf 1 holds 'text_' || i % 100, leaf 2 'text_' || i % 200
    (i in 1..1000 each); the root's distinct count is 200 (the union), not 300 (the sum); a is
    1000 distinct in 2000 rows (n_distinct -0.5), b is 6."""
    table = "analytics.gp_hll_union"
    spark.sql(f"drop table if exists {table}")
    spark.sql(f"create table {table} (a int, b int, c string, prt int) using parquet partitioned by (prt)")
    spark.sql(f"""insert into {table} select id, id % 3, concat('text_', id % 100), 1 from range(1, 1001)
                  union all select id, id % 3 + 3, concat('text_', id % 200), 2 from range(1, 1001)""")
    result = analyze(dbt, relation=table, columns="all")
    assert result.success, result.error
    leaves = [column_stats(spark, table, f"prt={p}")["c"]["distinct_count"] for p in (1, 2)]
    root = column_stats(spark, table)
    assert leaves == [100, 200]
    assert (root["c"]["distinct_count"], root["a"]["distinct_count"], root["b"]["distinct_count"]) == (200, 1000, 6)
    assert table_stats(spark, table)[""]["row_count"] == 2000


def test_greenplum_split_partition_is_the_only_one_scanned_again(spark, dbt):
    """'Testing auto merging root statistics ... split partitions': foo(a, c, d) = (i % 13,
    'something' || i, i % 121) for i in 1..1000, range partitions a in [0, 4), [4, 8) and a default;
    the default is then split into [8, 12) and a default holding a = 12. Greenplum's root: a has
    n_distinct 13, c -1 (all distinct), d -0.121 (121 of 1000); leaf [0, 4): a 4 distinct with
    most common values {1, 2, 3, 0} at {0.250814 x 3, 0.247557}, d -0.394137 (121 of 307); the
    default: a 1 distinct, d -1 (all 77 distinct). Ours: after the split only the two rewritten
    partitions are scanned again."""
    table = "analytics.gp_split_partition"
    prt = "case when a < 4 then 'p0_4' when a < 8 then 'p4_8' else 'p_default' end"
    spark.sql(f"drop table if exists {table}")
    spark.sql(f"create table {table} (a int, c string, d int, prt string) using parquet partitioned by (prt)")
    spark.sql(f"insert into {table} select a, c, d, {prt} from (select id % 13 as a, concat('something', id) as c, id % 121 as d from range(1, 1001))")
    assert analyze(dbt, relation=table, columns="all").success
    # The split: the default partition keeps a = 12, a new partition takes 8 <= a < 12.
    source = "(select id % 13 as a, concat('something', id) as c, id % 121 as d from range(1, 1001))"
    spark.sql(f"insert overwrite table {table} partition (prt = 'p_default') select a, c, d from {source} where a = 12")
    spark.sql(f"insert into {table} partition (prt = 'p8_12') select a, c, d from {source} where a between 8 and 11")
    result = analyze(dbt, relation=table, columns="all")
    assert result.success, result.error
    run = last_run(spark, table)
    assert (run["targets_scanned"], run["partitions_skipped"]) == (2, 2)

    root = column_stats(spark, table)
    assert (root["a"]["distinct_count"], root["c"]["distinct_count"], root["d"]["distinct_count"]) == (13, 1000, 121)
    assert round(-root["d"]["distinct_count"] / table_stats(spark, table)[""]["row_count"], 3) == -0.121
    leaf = column_stats(spark, table, "prt=p0_4")
    assert (leaf["a"]["distinct_count"], leaf["d"]["distinct_count"]) == (4, 121)
    rows_in_leaf = table_stats(spark, table)["prt=p0_4"]["row_count"]
    assert {v: round(f / rows_in_leaf, 6) for v, f in top_values(spark, table, "a", "prt=p0_4").items()} == {
        "1": 0.250814, "2": 0.250814, "3": 0.250814, "0": 0.247557}
    assert round(-leaf["d"]["distinct_count"] / rows_in_leaf, 6) == -0.394137
    default = column_stats(spark, table, "prt=p_default")
    assert (default["a"]["distinct_count"], default["d"]["distinct_count"], table_stats(spark, table)["prt=p_default"]["row_count"]) == (1, 77, 77)
    assert [column_stats(spark, table, f"prt={p}")["a"]["distinct_count"] for p in ("p4_8", "p8_12")] == [4, 4]
