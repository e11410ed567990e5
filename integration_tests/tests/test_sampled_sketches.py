"""Distribution sketches from a sample of the rows: the KLL and top-k sketches of a large table see
a seeded Bernoulli sample at one rate per table, sized by dbt_analyze_sketch_sample_rows; exact
measures and HLL see every row. Tables are over 1 MiB of files (smaller ones are never sampled)."""

import bisect
import json

import pytest
from conftest import rows

T = "analytics.sketch_sampled"
# The big partition's values lie in [0, 100,000), the small ones' in [900,000, 1,000,000): sketches
# merged with the wrong weights (a 10% sample counted as if whole) put a share of the table's
# quantiles in the small partitions' range.
SELECT = """select id, cast(if(p = 0, id % 100000, 900000 + id % 100000) as bigint) as v,
                  cast(id % 50 as bigint) as k, p from ({rows})"""


def analyzed(dbt, sample_rows, **args):
    result = dbt("run-operation", "analyze_table", "--args", json.dumps({"relation": T, "columns": "all", **args}),
                 "--vars", json.dumps({"dbt_analyze_sketch_sample_rows": sample_rows}))
    assert result.success, result.error
    return result


def states(spark):
    return {(r["partition_spec"], r["column_name"]): r for r in rows(spark, """
        select s.partition_spec, s.column_name, s.sketch_rate, s.sketch_values, s.value_count, s.run_id
        from analytics_stats.partition_states s
        join (select partition_spec, max(collected_at) as latest from analytics_stats.partition_states
              where table_name = 'sketch_sampled' group by 1) l
          on s.partition_spec = l.partition_spec and s.collected_at = l.latest
        where s.table_name = 'sketch_sampled'""")}


def assert_table_distribution_unbiased(spark):
    """The table's quantiles and histogram bounds sit within 1% of rank of the exact ones, and its
    top values' frequencies within 10% of the exact counts."""
    data = sorted(r["v"] for r in rows(spark, f"select v from {T}"))
    for r in rows(spark, "select quantile, cast(value as bigint) as value from analytics_stats.column_quantiles "
                         "where table_name = 'sketch_sampled' and partition_spec = '' and column_name = 'v'"):
        below, up_to = bisect.bisect_left(data, r["value"]) / len(data), bisect.bisect_right(data, r["value"]) / len(data)
        assert below - 0.01 <= r["quantile"] <= up_to + 0.01, (r, below, up_to)
    bins = rows(spark, "select bin, cast(upper_bound as bigint) as upper from analytics_stats.column_histograms "
                       "where table_name = 'sketch_sampled' and partition_spec = '' and column_name = 'v'")
    assert len(bins) == 254
    for b in bins:
        below, up_to = bisect.bisect_left(data, b["upper"]) / len(data), bisect.bisect_right(data, b["upper"]) / len(data)
        assert below - 0.01 <= (b["bin"] + 1) / 254 <= up_to + 0.01, (b, below, up_to)
    exact = {str(r["k"]): r["n"] for r in rows(spark, f"select k, count(*) as n from {T} group by k")}
    top = rows(spark, "select value, frequency from analytics_stats.column_top_values "
                      "where table_name = 'sketch_sampled' and partition_spec = '' and column_name = 'k'")
    assert len(top) >= 20
    for r in top:
        assert abs(r["frequency"] - exact[r["value"]]) <= 0.1 * exact[r["value"]], (r, exact[r["value"]])


@pytest.fixture(scope="module")
def sampled(spark, dbt):
    spark.sql(f"drop table if exists {T}")
    # one partition of 400,000 rows, one of 4,000: very different sizes, one rate
    spark.sql(f"""create table {T} using parquet partitioned by (p) as """
              + SELECT.format(rows="select id, cast(if(id < 400000, 0, 1) as int) as p from range(404000)"))
    result = analyzed(dbt, 40000, full=True)
    return result


def test_partitions_of_very_different_sizes_are_sampled_at_one_rate_and_merge_unbiased(spark, dbt, sampled):
    assert "quantiles, histograms and top values from a 10% sample of the rows" in sampled.log
    found = states(spark)
    assert {found[(p, "v")]["sketch_rate"] for p in ("p=0", "p=1")} == {0.1}
    big = found[("p=0", "v")]
    assert big["value_count"] == 400000 and 36000 <= big["sketch_values"] <= 44000, big
    assert found[("p=1", "v")]["value_count"] == 4000 and found[("p=1", "v")]["sketch_values"] < 800
    stats = {r["column_name"]: r for r in rows(spark, "select * from analytics_stats.column_statistics "
                                                      "where table_name = 'sketch_sampled' and partition_spec = ''")}
    assert stats["v"]["distinct_count"] == pytest.approx(104000, rel=0.02)  # HLL over every row
    assert stats["v"]["sketch_values"] == big["sketch_values"] + found[("p=1", "v")]["sketch_values"]
    assert stats["k"]["min_value"] == "0" and stats["k"]["max_value"] == "49"  # exact measures over every row
    assert_table_distribution_unbiased(spark)
    assert "sketched" in sampled.log  # format_statistics says what share the sketches saw


def test_a_new_partition_takes_the_tables_rate_and_a_full_run_chooses_anew(spark, dbt, sampled):
    spark.sql(f"insert into {T} " + SELECT.format(rows="select id, 2 as p from range(404000, 408000)"))
    # the var now asks for every row, but a run that does not scan the whole table keeps its rate
    result = analyzed(dbt, 10000000)
    assert "scanning analytics.sketch_sampled: 1 of 3 partition(s)" in result.log, result.log
    found = states(spark)
    assert found[("p=2", "v")]["sketch_rate"] == 0.1 and found[("p=0", "v")]["sketch_rate"] == 0.1
    assert_table_distribution_unbiased(spark)
    # a full run chooses the rate anew: every partition's sketches see every row
    result = analyzed(dbt, 10000000, full=True)
    assert "scanning analytics.sketch_sampled: 3 of 3 partition(s)" in result.log
    found = states(spark)
    assert all(found[(p, "v")]["sketch_rate"] is None for p in ("p=0", "p=1", "p=2"))
    assert found[("p=0", "v")]["sketch_values"] == 400000
    assert_table_distribution_unbiased(spark)
    # and a sample again
    spark.sql(f"insert into {T} " + SELECT.format(rows="select id, 3 as p from range(408000, 412000)"))
    result = analyzed(dbt, 40000, full=True)
    assert "scanning analytics.sketch_sampled: 4 of 4 partition(s)" in result.log
    assert {state["sketch_rate"] for key, state in states(spark).items() if key[1] == "v"} == {0.1}
    assert_table_distribution_unbiased(spark)


def test_sample_sketches_false_feeds_every_row_and_rescans_the_sampled_partitions(spark, dbt, sampled):
    # not a full run: the partitions whose sketches saw a sample are stale for one that wants every row
    result = analyzed(dbt, 40000, sample_sketches=False)
    assert "scanning analytics.sketch_sampled: 4 of 4 partition(s)" in result.log, result.log
    assert "% sample of the rows" not in result.log and "sketched" not in result.log
    for (spec, column), state in states(spark).items():
        if column in ("v", "k", "id"):
            assert state["sketch_rate"] is None and state["sketch_values"] == state["value_count"], (spec, column, state)
    # every row in the sketch: the top values' counts are the exact ones
    exact = {str(r["k"]): r["n"] for r in rows(spark, f"select k, count(*) as n from {T} group by k")}
    top = rows(spark, "select value, frequency from analytics_stats.column_top_values "
                      "where table_name = 'sketch_sampled' and partition_spec = '' and column_name = 'k'")
    assert len(top) == 20 and all(r["frequency"] == exact[r["value"]] for r in top)
    assert_table_distribution_unbiased(spark)
    # a later run keeps the table's rate, every row, until a full run chooses again
    result = analyzed(dbt, 40000)
    assert "unchanged since its last analysis" in result.log


def test_a_column_whose_sample_saw_every_value_once_gets_no_top_values(spark, dbt):
    spark.sql("drop table if exists analytics.sketch_unique")
    spark.sql("create table analytics.sketch_unique using parquet as select id, cast(id % 7 as bigint) as k "
              "from range(400000)")
    # about 1,000 rows in the sample: fewer than the items a top-k sketch tracks, so it counts each
    # value it saw, and each unique id once
    result = dbt("run-operation", "analyze_table",
                 "--args", json.dumps({"relation": "analytics.sketch_unique", "columns": "all", "publish": True}),
                 "--vars", json.dumps({"dbt_analyze_sketch_sample_rows": 1000}))
    assert result.success, result.error
    # the histogram spans the column's exact range, not the sample's: Spark's optimizer refuses a
    # histogram narrower than the column's min and max
    bounds = rows(spark, "select min(lower_bound) as low, max(cast(upper_bound as bigint)) as high from analytics_stats.column_histograms "
                         "where table_name = 'sketch_unique' and partition_spec = '' and column_name = 'id'")[0]
    assert bounds == {"low": "0", "high": 399999}
    spark.conf.set("spark.sql.cbo.enabled", "true")
    try:
        assert "rowCount" in spark.sql("explain cost select * from analytics.sketch_unique where id = 5").collect()[0][0]
    finally:
        spark.conf.set("spark.sql.cbo.enabled", "false")
    top = rows(spark, "select column_name, value, frequency from analytics_stats.column_top_values "
                      "where table_name = 'sketch_unique' and partition_spec = ''")
    # a value seen once stands for 400 rows it cannot back: none is listed
    assert not [r for r in top if r["column_name"] == "id"], top
    assert sorted(r["value"] for r in top if r["column_name"] == "k") == [str(i) for i in range(7)]
    assert all(abs(r["frequency"] - 400000 / 7) <= 0.3 * 400000 / 7 for r in top)


def test_a_small_table_is_never_sampled(spark, dbt):
    spark.sql("drop table if exists analytics.sketch_small")
    spark.sql("create table analytics.sketch_small using parquet as select id, id % 3 as k from range(20000)")
    result = dbt("run-operation", "analyze_table", "--args", json.dumps({"relation": "analytics.sketch_small", "columns": "all"}),
                 "--vars", json.dumps({"dbt_analyze_sketch_sample_rows": 1000}))
    assert result.success, result.error
    state = rows(spark, "select sketch_rate, sketch_values, value_count from analytics_stats.partition_states "
                        "where table_name = 'sketch_small' and column_name = 'id'")
    assert state == [{"sketch_rate": None, "sketch_values": 20000, "value_count": 20000}]


def test_bad_sample_settings_are_refused(dbt):
    result = dbt("run-operation", "analyze_table", "--args", json.dumps({"relation": T, "columns": "all"}),
                 "--vars", json.dumps({"dbt_analyze_sketch_sample_rows": 10}))
    assert not result.success and "dbt_analyze_sketch_sample_rows" in result.error
