"""Histograms, quantiles and top values from merged sketches against exact answers.

Bins: each bin's upper bound sits within 1% (in rank) of the exact equi-height split; per-bin
NDV estimates are compared with exact per-bin distinct counts (the error is printed and bounded:
median 1.1, p90 1.2, worst bin 1.5x, where runs at the default KLL k of 4,000 measure at most 1.03,
1.07 and 1.14; KLL's bounds vary from run to run); top values equal the exact ones where
frequencies are well separated."""

import bisect
import hashlib
import statistics

import pytest
from conftest import analyze, rows

T = "analytics.shapes"
SHAPES = {
    "uniform": "cast(rand(1) * 1000000 as bigint)",
    "zipf": "cast(floor(pow(1 - rand(2), -1.0 / 1.1)) as bigint)",
    "duplicated": "cast(floor(rand(3) * 10) as bigint) * 1000",
    # many rows on the small values, a long sparse tail: the tail's bins hold ~2x-10x more
    # distinct values than the head's, which a share of the NDV by quantile-grid points misses
    "log_uniform": "cast(floor(pow(1000000, rand(4))) as bigint)",
    # not integers: a bin's distinct values are a share of the NDV, not counted from its bounds
    "continuous": "rand(5) * 1000",
    "cents": "cast(rand(6) * 1000 as decimal(10,2))",
    # temporal: sketched as microseconds and days; dates count a bin's values from its bounds
    "moments": "timestamp_seconds(1700000000 + cast(rand(7) * 172800 as bigint))",
    "days": "date_add(date'2020-01-01', cast(rand(8) * 2000 as int))",
}
# A value as a number, the way the package sketches it (bounds are stored as the type renders them).
NUMERIC = {"moments": "unix_micros(cast({} as timestamp))", "days": "unix_date(cast({} as date))"}


def numeric(column, value_sql):
    return NUMERIC.get(column, "cast({} as double)").format(value_sql)


@pytest.fixture(scope="module")
def shapes(spark, dbt):
    spark.sql(f"drop table if exists {T}")
    columns = ", ".join(f"{expr} as {name}" for name, expr in SHAPES.items())
    spark.sql(f"create table {T} using parquet partitioned by (p) as select {columns}, cast(id % 4 as int) as p from range(200000)")
    result = analyze(dbt, relation=T, columns="all")
    assert result.success, result.error
    return {name: sorted(float(r[name]) for r in rows(spark, f"select {numeric(name, name)} as {name} from {T}")) for name in SHAPES}


def histogram(spark, column):
    return rows(spark, f"""select bin, {numeric(column, 'lower_bound')} as lower, {numeric(column, 'upper_bound')} as upper, row_count, distinct_count
                           from analytics_stats.column_histograms
                           where table_name = 'shapes' and partition_spec = '' and column_name = '{column}' order by bin""")


@pytest.mark.parametrize("column", list(SHAPES))
def test_bins_match_an_exact_equi_height_split(spark, shapes, column):
    data = shapes[column]
    bins = histogram(spark, column)
    assert len(bins) == 254
    assert bins[0]["lower"] == data[0] and bins[-1]["upper"] == data[-1]
    for b in bins:
        target = (b["bin"] + 1) / 254
        below, up_to = bisect.bisect_left(data, b["upper"]) / len(data), bisect.bisect_right(data, b["upper"]) / len(data)
        assert below - 0.01 <= target <= up_to + 0.01, (b, below, up_to)
        assert b["row_count"] == pytest.approx(len(data) / 254)


@pytest.mark.parametrize("column", list(SHAPES))
def test_per_bin_distinct_counts_against_exact(spark, shapes, column):
    data = shapes[column]
    errors = []
    for b in histogram(spark, column):
        low = bisect.bisect_right(data, b["lower"]) if b["bin"] > 0 else bisect.bisect_left(data, b["lower"])
        exact = len(set(data[low:bisect.bisect_right(data, b["upper"])]))
        if exact:
            errors.append(max(b["distinct_count"] / exact, exact / b["distinct_count"]))
    errors.sort()
    median, p90 = statistics.median(errors), errors[int(0.9 * len(errors))]
    print(f"per-bin NDV q-error of {column}: median {median:.2f}, p90 {p90:.2f}, max {errors[-1]:.2f}")
    assert median <= 1.1 and p90 <= 1.2 and errors[-1] <= 1.5


@pytest.mark.parametrize("column", ["zipf", "duplicated"])
def test_top_values_equal_the_exact_ones(spark, shapes, column):
    ours = rows(spark, f"""select value, frequency from analytics_stats.column_top_values
                           where table_name = 'shapes' and partition_spec = '' and column_name = '{column}' order by rank limit 3""")
    exact = rows(spark, f"select cast({column} as string) as value, count(*) as frequency from {T} group by 1 order by 2 desc limit 3")
    assert ours == exact


def test_most_common_values_reach_what_the_sketch_counts_for_sure(spark, dbt):
    """By default the list is bounded by the items the top-k sketch tracks, not by a count of its
    own: 300 values on 60 rows each among 20,000 that occur once, so the sketch (2,048 items
    tracked) counts all 300 for sure and lists no value that occurs once. A list as long as the
    items tracked, and as many top values as tracked, are taken too: the sketch is read for one item
    more than the list only while it tracks more."""
    table = "analytics.most_common_many"
    spark.sql(f"drop table if exists {table}")
    spark.sql(f"""create table {table} using parquet as
                  select cast(id % 300 as int) as x from range(18000)
                  union all select cast(id + 1000 as int) from range(20000)""")
    assert analyze(dbt, relation=table, columns="all").success
    listed = rows(spark, """select value, frequency from analytics_stats.column_top_values
                            where table_name = 'most_common_many' and partition_spec = '' and column_name = 'x'""")
    assert sorted(int(r["value"]) for r in listed) == list(range(300))
    # a sketch's count is an upper bound: the rows it saw plus its error (here 6 rows)
    assert all(60 <= r["frequency"] <= 72 for r in listed), sorted(r["frequency"] for r in listed)
    for settings in ("{dbt_analyze_top_k_tracked: 50, dbt_analyze_most_common_values: 50}",
                     "{dbt_analyze_top_k_tracked: 50, dbt_analyze_top_k: 50}"):
        edge = dbt("run-operation", "analyze_table", "--args", f"{{relation: {table}, columns: all, full: true}}",
                   "--vars", settings)
        assert edge.success, edge.error
        assert rows(spark, """select count(*) as n from analytics_stats.column_top_values
                             where table_name = 'most_common_many' and partition_spec = ''""")[0]["n"] <= 50


def test_a_request_sets_the_items_its_sketches_track(spark, dbt):
    """`top_k_tracked` sets the items a run's top-k sketches track: the states it scans and the
    table's merged sketch track that many. Two partitions of 300 values on 30 rows each among
    10,000 values that occur once: 64 items cannot count the 300 apart from the rest, 2,048 (the
    var's default) can. A run rescans the partitions whose sketches track fewer items than it does
    (a merge counts for sure only as far as its smallest sketch). A run that does not ask tracks
    the most that the table's states track, or the var's if more; one that asks for fewer merges
    the larger states into a sketch of its size and rescans nothing."""
    table = "analytics.most_common_tracked"
    spark.sql(f"drop table if exists {table}")
    spark.sql(f"""create table {table} using parquet partitioned by (p) as
                  select cast(id % 300 as int) as x, cast(id % 2 as int) as p from range(18000)
                  union all select cast(id + 1000 as int), cast(id % 2 as int) from range(20000)""")

    def tracked(partition_spec: str) -> list[int]:
        return [r["n"] for r in rows(spark, f"""select state_top_values_sketch.maxItemsTracked as n
            from analytics_stats.statistics_history where table_name = 'most_common_tracked'
            and partition_spec = '{partition_spec}' and column_name = 'x' order by collected_at""")]

    def listed() -> int:
        return rows(spark, """select count(*) as n from analytics_stats.column_top_values
                              where table_name = 'most_common_tracked' and partition_spec = '' and column_name = 'x'""")[0]["n"]

    assert analyze(dbt, relation=table, columns="all", top_k_tracked=64).success
    assert tracked("p=0") == tracked("p=1") == tracked("") == [64]
    assert listed() < 300
    spark.sql(f"""insert into {table} select cast(id % 300 as int), 2 from range(9000)
                  union all select cast(id + 100000 as int), 2 from range(10000)""")
    assert analyze(dbt, relation=table, columns="all").success
    assert tracked("p=0") == tracked("p=1") == tracked("") == [64, 2048] and tracked("p=2") == [2048]
    assert listed() == 300
    assert analyze(dbt, relation=table, columns="all", top_k_tracked=4096).success
    assert tracked("p=2") == [2048, 4096] and tracked("") == [64, 2048, 4096]
    spark.sql(f"insert into {table} select cast(id % 300 as int), 3 from range(900)")
    assert analyze(dbt, relation=table, columns="all").success
    assert tracked("p=3") == [4096] and tracked("p=2") == [2048, 4096] and tracked("")[-1] == 4096
    spark.sql(f"insert into {table} select cast(id % 300 as int), 4 from range(900)")
    assert analyze(dbt, relation=table, columns="all", top_k_tracked=64).success
    assert tracked("p=4") == [64] and tracked("p=3") == [4096] and tracked("")[-1] == 64


def test_a_column_whose_most_common_values_ran_out_of_its_sketch_tracks_more_from_the_next_run(spark, dbt):
    """A run whose top-k sketch cut a column's most common values (Zipf-like: value k on 3,000 / k
    rows, 1,000 values) stores a hint, and the table's next runs track dbt_analyze_top_k_tracked_max
    items for that column alone (its partitions scanned again once), while a column of unique
    values keeps dbt_analyze_top_k_tracked: its sketch cut nothing worth listing."""
    table = "analytics.most_common_grown"
    spark.sql(f"drop table if exists {table}")
    spark.sql(f"""create table {table} using parquet partitioned by (p) as
                  select cast(k.id as int) as heavy, row_number() over (order by k.id, r.id) as id, cast(r.id % 2 as int) as p
                  from range(1, 1001) k join range(3000) r on r.id < 3000 div k.id""")
    sizes = '{"dbt_analyze_top_k_tracked": 64, "dbt_analyze_top_k_tracked_max": 1024}'

    def run():
        result = dbt("run-operation", "analyze_table", "--args", f"{{relation: {table}, columns: all}}", "--vars", sizes)
        assert result.success, result.error
        return result

    def tracked(column: str) -> dict:
        return {r["partition_spec"]: r["n"] for r in rows(spark, f"""select partition_spec,
            max_by(state_top_values_sketch.maxItemsTracked, collected_at) as n from analytics_stats.statistics_history
            where table_name = 'most_common_grown' and column_name = '{column}' and partition_spec <> '' group by 1""")}

    def listed() -> int:
        return rows(spark, """select count(*) as n from analytics_stats.column_top_values
                              where table_name = 'most_common_grown' and partition_spec = '' and column_name = 'heavy'""")[0]["n"]

    def hint():
        return [r["value"] for r in rows(spark, "show tblproperties analytics_stats.statistics_history")
                if r["key"].startswith("dbt_analyze.top_k_tracked.")
                and r["key"].endswith(hashlib.md5(table.encode()).hexdigest())]

    first = run()
    assert "the most common values of heavy ran out of their top-k sketches; they track 1024 items" in first.log
    assert hint() == ['{"heavy": 1024}']
    assert tracked("heavy") == tracked("id") == {"p=0": 64, "p=1": 64}
    before = listed()
    second = run()
    assert "scanning analytics.most_common_grown: 2 of 2 partition(s)" in second.log  # their heavy sketches track fewer
    assert "ran out of their top-k sketches" not in second.log
    assert tracked("heavy") == {"p=0": 1024, "p=1": 1024} and tracked("id") == {"p=0": 64, "p=1": 64}
    assert listed() > 3 * before
    spark.sql(f"insert into {table} select cast(id % 7 + 1 as int), 10000000 + id, 2 from range(700)")
    third = run()
    assert "scanning analytics.most_common_grown: 1 of 3 partition(s)" in third.log
    assert tracked("heavy")["p=2"] == 1024 and tracked("id")["p=2"] == 64


def test_quantiles_within_rank_error(spark, shapes):
    data = shapes["uniform"]
    for q in rows(spark, """select quantile, cast(value as bigint) as value from analytics_stats.column_quantiles
                            where table_name = 'shapes' and partition_spec = '' and column_name = 'uniform'"""):
        assert abs(bisect.bisect_right(data, q["value"]) / len(data) - q["quantile"]) <= 0.01


def test_most_common_values_are_the_values_well_above_the_rest(spark, dbt):
    """25 values on 400 rows, 10 on 8 and 500 on 3, over two partitions: the list keeps a value while
    it is at least 1.25 times as common as the average of the values not listed before it, so the
    35 first and none of the 3-row ones (3 < 1.25 x 3); more than dbt_analyze_top_k (20), at most
    dbt_analyze_most_common_values."""
    table = "analytics.most_common"
    spark.sql(f"drop table if exists {table}")
    spark.sql(f"""create table {table} using parquet partitioned by (p) as
                  select x, cast(id % 2 as int) as p from (
                    select cast(id % 25 + 1 as int) as x, id from range(10000)
                    union all select cast(id % 10 + 101 as int), id from range(80)
                    union all select cast(id % 500 + 1001 as int), id from range(1500))""")
    assert analyze(dbt, relation=table, columns="all").success
    listed = rows(spark, """select rank, value, frequency from analytics_stats.column_top_values
                            where table_name = 'most_common' and partition_spec = '' and column_name = 'x' order by rank""")
    assert [r["rank"] for r in listed] == list(range(1, 36))
    assert {(r["value"], r["frequency"]) for r in listed} == (
        {(str(v), 400) for v in range(1, 26)} | {(str(v), 8) for v in range(101, 111)})
    capped = dbt("run-operation", "analyze_table", "--args", f'{{relation: {table}, columns: all, full: true}}',
                 "--vars", "{dbt_analyze_most_common_values: 30}")
    assert capped.success, capped.error
    assert rows(spark, """select count(*) as n from analytics_stats.column_top_values
                          where table_name = 'most_common' and partition_spec = '' and column_name = 'x'""") == [{"n": 30}]
