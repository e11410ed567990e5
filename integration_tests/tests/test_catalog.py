"""publish: true writes our statistics into Spark's catalog as Spark's own ANALYZE would, and the
cost-based optimizer plans with them as it does with Spark's."""

import re

import pytest
from conftest import analyze, rows
from test_oracle import same_value

TABLES = {  # name: select that builds it
    "fact": """select id, cast(id % 100 as int) as d1_id, cast(id % 10 as int) as d2_id, id * 0.5 as amount,
               cast(id % 7 as decimal(10, 2)) as price, concat('c', cast(id % 37 as string)) as code,
               date_add(date'2024-01-01', cast(id % 30 as int)) as day, timestamp_seconds(1700000000 + id) as at,
               id % 2 = 0 as even, if(id % 5 = 0, null, id) as sparse from range(20000)""",
    "dim1": "select cast(id as int) as d1_id, concat('name', cast(id as string)) as name from range(100)",
    "dim2": "select cast(id as int) as d2_id, cast(id * 10 as int) as weight from range(10)",
}


def describe_column(spark, table, column):
    described = {r["info_name"]: r["info_value"] for r in rows(spark, f"describe extended {table} {column}")}
    return {k: described.get(k) for k in ("min", "max", "num_nulls", "distinct_count", "avg_col_len", "max_col_len")}, described


def table_statistics(spark, table):
    return {r["col_name"]: r["data_type"] for r in rows(spark, f"describe table extended {table}")}.get("Statistics")


@pytest.fixture(scope="module")
def published(spark, dbt):
    """Each table twice: `ours_<name>` published by dbt_analyze, `spark_<name>` analyzed by Spark."""
    for name, select in TABLES.items():
        for copy in ("ours", "spark"):
            spark.sql(f"drop table if exists analytics.{copy}_{name}")
            spark.sql(f"create table analytics.{copy}_{name} using parquet as {select}")
        result = analyze(dbt, relation=f"analytics.ours_{name}", columns="all", publish=True)
        assert result.success, result.error
        assert "published the statistics of analytics.ours_" in result.log
    spark.conf.set("spark.sql.statistics.histogram.enabled", "true")
    for name in TABLES:
        spark.sql(f"analyze table analytics.spark_{name} compute statistics for all columns")
    spark.conf.set("spark.sql.statistics.histogram.enabled", "false")


@pytest.mark.parametrize("column", ["id", "d1_id", "amount", "price", "code", "day", "at", "even", "sparse"])
def test_describe_extended_shows_what_sparks_analyze_stores(spark, published, column):
    ours, ours_all = describe_column(spark, "analytics.ours_fact", column)
    theirs, theirs_all = describe_column(spark, "analytics.spark_fact", column)
    for key in ("num_nulls", "avg_col_len", "max_col_len"):
        assert ours[key] == theirs[key], (key, ours, theirs)
    # NDV: ours (HLL, lgK 14: 0.8% standard error) within 2% of the exact count; Spark's own HLL++ has 5%
    exact = rows(spark, f"select count(distinct {column}) as n from analytics.ours_fact")[0]["n"]
    assert abs(int(ours["distinct_count"]) - exact) <= 0.02 * exact, (ours, theirs, exact)
    for key in ("min", "max"):
        assert (ours[key] is None and theirs[key] is None) or same_value(ours[key], theirs[key]), (key, ours, theirs)
    # a histogram of 254 bins where Spark keeps one
    has_histogram = theirs_all.get("histogram", "NULL") != "NULL"
    assert (ours_all.get("histogram", "NULL") != "NULL") == has_histogram
    if has_histogram:
        assert ours_all["histogram"].endswith("num_of_bins: 254")


def test_table_statistics_equal_sparks(spark, published):
    for name in TABLES:
        ours, theirs = table_statistics(spark, f"analytics.ours_{name}"), table_statistics(spark, f"analytics.spark_{name}")
        assert ours == theirs, name


def explain_cost(spark, prefix) -> tuple[str, list[float]]:
    """The optimized plan's text (table names and expression ids made neutral, estimates apart)
    and its row estimates."""
    query = f"""select f.id, d1.name, d2.weight from analytics.{prefix}_fact f
                join analytics.{prefix}_dim1 d1 on f.d1_id = d1.d1_id
                join analytics.{prefix}_dim2 d2 on f.d2_id = d2.d2_id
                where f.amount < 2500 and d2.weight > 30"""
    plan = spark.sql(f"explain cost {query}").collect()[0][0]
    optimized = plan.split("== Physical Plan ==")[0]
    shape = re.sub(r"#\d+L?", "#", optimized.replace(f"analytics.{prefix}_", "analytics.<t>_"))
    estimates = [float(count) for count in re.findall(r"rowCount=([0-9.E+]+)", shape)]
    return re.sub(r"Statistics\([^)]*\)", "Statistics(...)", shape), estimates


def test_cbo_plans_the_same_join_order_and_estimates(spark, published):
    settings = {"spark.sql.cbo.enabled": "true", "spark.sql.cbo.joinReorder.enabled": "true", "spark.sql.autoBroadcastJoinThreshold": "-1"}
    for key, value in settings.items():
        spark.conf.set(key, value)
    try:
        ours, theirs = explain_cost(spark, "ours"), explain_cost(spark, "spark")
    finally:
        for key in settings:
            spark.conf.unset(key)
    (our_plan, our_rows), (their_plan, their_rows) = ours, theirs
    assert our_plan == their_plan  # the same join order and operators
    assert len(our_rows) == len(their_rows) > 3
    # Estimates match up to the NDV each side has (ours: HLL within 1%; Spark's: HLL++ within 5%),
    # which scales filter and join estimates.
    for our_count, their_count in zip(our_rows, their_rows):
        assert abs(our_count - their_count) <= 0.05 * their_count, (our_rows, their_rows)


def test_a_write_wipes_catalog_statistics_and_the_next_run_republishes(spark, dbt, published):
    spark.sql("insert into analytics.ours_dim2 select 10, 100")
    assert not (table_statistics(spark, "analytics.ours_dim2") or "").endswith("10 rows")  # Spark dropped ours
    result = analyze(dbt, relation="analytics.ours_dim2", columns="all", publish=True)
    assert result.success, result.error
    assert table_statistics(spark, "analytics.ours_dim2").endswith("11 rows")
