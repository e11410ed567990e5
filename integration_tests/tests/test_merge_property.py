"""Merge equals scan: for random data split into random partitions, the table statistics merged
from partition states equal one exact computation over all rows for the exact statistics, and lie
within the sketches' bounds for NDV (HLL, lgK 14: 2 sd ~ 1.6%; 3% allowed) and quantiles (KLL k=4000:
normalized rank error < 0.1%). The same data unpartitioned: its rows derived from its one state as it
is (no aggregate) meet the same bounds; so do a partitioned table's after a partition is added to
it, merged with the table's merged state."""

import bisect

from conftest import analyze, column_stats, rows, table_stats
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

values = st.one_of(st.none(), st.integers(min_value=-10**6, max_value=10**6))
texts = st.one_of(st.none(), st.text(alphabet="abcdé ✓'\"", max_size=12))


@settings(max_examples=6, deadline=None, suppress_health_check=list(HealthCheck))
@given(
    data=st.lists(st.tuples(values, texts, st.one_of(st.none(), st.booleans())), min_size=1, max_size=300),
    parts=st.integers(min_value=1, max_value=6),
    seed=st.integers(min_value=0, max_value=1000),
    spread=st.integers(min_value=0, max_value=5000),
    partitioned=st.booleans(),
    grown=st.booleans(),
)
# found by hypothesis: one partition all NULL, the other one value; table quantiles were missing
@example(data=[(None, None, None), (0, None, None)], parts=3, seed=1, spread=0, partitioned=True, grown=False)
@example(data=[(None, "a", True), (7, None, None), (-3, "b'c", False)], parts=1, seed=2, spread=300, partitioned=False,
         grown=False)
@example(data=[(None, "a", True), (7, "b", None), (-3, None, False), (5, "a", True)], parts=3, seed=3, spread=400,
         partitioned=True, grown=True)
def test_merged_statistics_equal_one_scan(spark, dbt, data, parts, seed, spread, partitioned, grown):
    import random

    rng = random.Random(seed)
    # a wide range of distinct values in some examples, so the sketches are exercised too
    records = [(v, s, b, rng.randrange(parts)) for v, s, b in data] + [(rng.randrange(10**9), None, None, rng.randrange(parts))
                                                                       for _ in range(spread)]
    spark.sql("drop table if exists analytics.merge_property")
    spark.sql("create table analytics.merge_property (v bigint, s string, b boolean, p int) using parquet"
              + (" partitioned by (p)" if partitioned else ""))
    # grown: the last partition added after a first run, which the second run merges with the
    # table's merged state
    batches = [[r for r in records if r[3] < parts - 1], [r for r in records if r[3] == parts - 1]] if grown and partitioned \
        else [records]
    for batch in batches:
        spark.createDataFrame(batch, "v bigint, s string, b boolean, p int").write.insertInto("analytics.merge_property")
        result = analyze(dbt, relation="analytics.merge_property", columns="all")
        assert result.success, result.error

    exact = rows(spark, """select count(*) as n, count(*) - count(v) as v_nulls, min(v) as v_min, max(v) as v_max,
                                  count(distinct v) as v_ndv, avg(v) as v_mean, stddev(v) as v_sd,
                                  count(*) - count(s) as s_nulls, min(s) as s_min, max(s) as s_max, max(length(s)) as s_maxlen,
                                  avg(length(s)) as s_avglen, count(distinct s) as s_ndv,
                                  count_if(b) as b_true, count_if(not b) as b_false
                           from analytics.merge_property""")[0]
    merged = column_stats(spark, "analytics.merge_property")
    assert table_stats(spark, "analytics.merge_property")[""]["row_count"] == exact["n"]
    v, s, b = merged["v"], merged["s"], merged["b"]
    assert v["null_count"] == exact["v_nulls"] and s["null_count"] == exact["s_nulls"]
    assert v["min_value"] == (str(exact["v_min"]) if exact["v_min"] is not None else None)
    assert v["max_value"] == (str(exact["v_max"]) if exact["v_max"] is not None else None)
    assert s["min_value"] == exact["s_min"] and s["max_value"] == exact["s_max"]
    assert s["max_len"] == (exact["s_maxlen"] if exact["s_maxlen"] is not None else 20)
    if exact["s_avglen"] is not None:
        assert abs(s["avg_len"] - exact["s_avglen"]) < 1e-9
    assert (b["true_count"], b["false_count"]) == (exact["b_true"], exact["b_false"])
    # a boolean's top values are its merged counts, exact (no sketch), ranked by count, then value
    top = rows(spark, """select rank, value, frequency from analytics_stats.column_top_values
                         where table_name = 'merge_property' and partition_spec = '' and column_name = 'b' order by rank""")
    counts = sorted([("true", exact["b_true"]), ("false", exact["b_false"])], key=lambda c: (-c[1], c[0]))
    assert [(r["value"], r["frequency"]) for r in top] == [c for c in counts if c[1] > 0]
    if exact["v_mean"] is not None:
        assert abs(v["mean"] - exact["v_mean"]) <= 1e-9 * max(1, abs(exact["v_mean"]))
    if exact["v_sd"] is not None:
        assert abs(v["stddev"] - exact["v_sd"]) <= 1e-6 * max(1, exact["v_sd"])
    for column, ndv in (("v", exact["v_ndv"]), ("s", exact["s_ndv"])):
        assert abs(merged[column]["distinct_count"] - ndv) <= max(1, 0.03 * ndv), (column, merged[column]["distinct_count"], ndv)

    ordered = sorted(r["v"] for r in rows(spark, "select v from analytics.merge_property where v is not null"))
    quantiles = rows(spark, """select quantile, value from analytics_stats.column_quantiles
                               where table_name = 'merge_property' and partition_spec = '' and column_name = 'v'""")
    assert len(quantiles) == (7 if ordered else 0)
    for q in quantiles:
        value = int(q["value"])
        low, high = bisect.bisect_left(ordered, value) / len(ordered), bisect.bisect_right(ordered, value) / len(ordered)
        assert low - 0.001 <= q["quantile"] <= high + 0.001, (q, low, high)
