"""Sampling: exact row counts, scaled counts, Duj1 NDV, and the sampled flag."""

from conftest import analyze, column_stats, rows, table_stats

T = "analytics.sampled"


def test_percent_sample_keeps_rows_exact_and_estimates_the_rest(spark, dbt):
    spark.sql(f"drop table if exists {T}")
    spark.sql(f"""create table {T} using parquet partitioned by (p) as
                  select id, cast(id % 20000 as bigint) as k, if(id % 10 = 0, null, 'x') as s, cast(id % 2 as int) as p
                  from range(400000)""")
    result = analyze(dbt, relation=T, columns="all", sample={"percent": 10})
    assert result.success, result.error
    tables = table_stats(spark, T)
    assert tables[""]["row_count"] == 400000 and tables["p=0"]["row_count"] == 200000  # exact
    assert tables[""]["sampled"] and tables["p=1"]["sampled"]
    stats = column_stats(spark, T)
    assert stats["k"]["sampled"]
    assert abs(stats["s"]["null_count"] - 40000) <= 0.1 * 40000  # scaled from the sample
    # 20,000 values each seen 20 times: a 10% sample sees ~ every value twice, Duj1 recovers the total
    assert abs(stats["k"]["distinct_count"] - 20000) <= 0.15 * 20000, stats["k"]["distinct_count"]
    # all-distinct ids: the sample alone would say 40,000; Duj1 scales up
    assert stats["id"]["distinct_count"] >= 0.8 * 400000, stats["id"]["distinct_count"]
    runs = rows(spark, "select rows_scanned from analytics_stats.analyze_runs order by started_at desc limit 1")
    assert runs[0]["rows_scanned"] == 400000


def test_rows_sample_scans_small_partitions_whole(spark, dbt):
    spark.sql("drop table if exists analytics.sampled_rows")
    spark.sql("""create table analytics.sampled_rows using parquet partitioned by (p) as
                 select id, cast(if(id < 100000, 0, 1) as int) as p from range(100500)""")
    result = analyze(dbt, relation="analytics.sampled_rows", columns="all", sample={"rows": 5000})
    assert result.success, result.error
    tables = table_stats(spark, "analytics.sampled_rows")
    assert tables["p=0"]["sampled"] and not tables["p=1"]["sampled"]
    assert tables["p=1"]["row_count"] == 500 and tables["p=0"]["row_count"] == 100000
    assert column_stats(spark, "analytics.sampled_rows", "p=1")["id"]["distinct_count"] == 500


def test_an_unpartitioned_table_is_sampled_too(spark, dbt):
    spark.sql("drop table if exists analytics.sampled_whole")
    spark.sql("create table analytics.sampled_whole using parquet as select id, id % 1000 as k from range(100000)")
    result = analyze(dbt, relation="analytics.sampled_whole", columns="all", sample={"percent": 10})
    assert result.success, result.error
    assert table_stats(spark, "analytics.sampled_whole")[""]["row_count"] == 100000  # exact
    state = rows(spark, "select sample_rows, singletons from analytics_stats.partition_states where table_name = 'sampled_whole' and column_name = 'k'")
    assert len(state) == 1 and 8000 <= state[0]["sample_rows"] <= 12000 and state[0]["singletons"] is not None, state
    stats = column_stats(spark, "analytics.sampled_whole")["k"]
    assert stats["sampled"] and abs(stats["distinct_count"] - 1000) <= 50


def test_bad_sample_is_refused(dbt):
    result = analyze(dbt, relation=T, sample={"percent": 0})
    assert not result.success and "sample percent must be a number in (0, 100]" in result.error


def test_a_sampled_collated_column_counts_singletons_under_its_collation(spark, dbt):
    # every value twice under UTF8_LCASE ('v1' and 'V1'): a 99% sample sees few values once (about 2% of them);
    # byte by byte, every value would be a singleton
    spark.sql("drop table if exists analytics.sampled_collated")
    spark.sql("""create table analytics.sampled_collated (s string collate UTF8_LCASE) using parquet""")
    spark.sql("insert into analytics.sampled_collated select concat(c, id) from range(1000) cross join values ('v'), ('V') t(c)")
    result = analyze(dbt, relation="analytics.sampled_collated", columns="all", sample={"percent": 99})
    assert result.success, result.error
    state = rows(spark, """select singletons, sample_rows from analytics_stats.partition_states
                           where table_name = 'sampled_collated' and column_name = 's'""")
    assert len(state) == 1 and state[0]["singletons"] <= 60 and state[0]["sample_rows"] >= 1900, state
    assert abs(column_stats(spark, "analytics.sampled_collated")["s"]["distinct_count"] - 1000) <= 20
