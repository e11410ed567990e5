"""Faults and schema changes: nothing current is lost when a run fails, and stale column states
are never merged with new ones."""

import glob
import os
import shutil

from conftest import HOME, analyze, column_stats, rows, table_stats


def snapshot(spark, where: str = "true", kinds=("table_statistics", "column_statistics", "column_histograms")):
    # repr: NaN statistics compare equal to themselves
    return repr([rows(spark, f"select * from analytics_stats.{name} where {where} order by all") for name in kinds])


def test_a_run_failing_mid_scan_changes_nothing_and_the_next_run_recovers(spark, dbt):
    spark.sql("drop table if exists analytics.fragile")
    spark.sql("create table analytics.fragile (v int, p int) using parquet partitioned by (p)")
    spark.sql("insert into analytics.fragile values (1, 1), (2, 2)")
    assert analyze(dbt, relation="analytics.fragile", columns="all").success
    before = snapshot(spark)
    states_before = rows(spark, "select count(*) as n from analytics_stats.partition_states")[0]["n"]

    # A real fault: a file that is not Parquet appears in a partition; the scan fails on it.
    corrupt = f"{HOME}/spark-warehouse/analytics.db/fragile/p=1/part-corrupt.parquet"
    with open(corrupt, "wb") as handle:
        handle.write(b"this is not parquet" * 100)
    spark.sql("refresh table analytics.fragile")  # files written behind Spark's back need a refresh
    failed = analyze(dbt, relation="analytics.fragile", columns="all")
    assert not failed.success
    assert snapshot(spark) == before
    last = rows(spark, "select * from analytics_stats.analyze_runs where table_name = 'fragile' order by started_at desc limit 1")[0]
    assert last["status"] == "running" and last["finished_at"] is None  # started, never finished

    for path in glob.glob(corrupt):
        os.remove(path)
    spark.sql("refresh table analytics.fragile")
    spark.sql("insert into analytics.fragile values (3, 1)")
    recovered = analyze(dbt, relation="analytics.fragile", columns="all")
    assert recovered.success, recovered.error
    assert table_stats(spark, "analytics.fragile")[""]["row_count"] == 3
    # the failed run's half-written states (if any) are never current: one row per partition and column
    current = rows(spark, """select count(*) as n from analytics_stats.column_statistics
                             where table_name = 'fragile' and partition_spec = 'p=1'""")[0]["n"]
    assert current == 1
    assert rows(spark, "select count(*) as n from analytics_stats.partition_states")[0]["n"] >= states_before


def test_a_failing_merge_statement_is_named_after_the_others_ran_to_their_end(spark, dbt):
    """A merge's statements run at once (session connections); one that fails does not cut the
    others short, and the error names it."""
    import json

    spark.sql("drop table if exists analytics.independent_a")
    spark.sql("drop table if exists analytics.independent_b")
    statements = ["create table analytics.independent_a using parquet as select id from range(1000)",
                  "insert into analytics.no_such_table values (1)",
                  "create table analytics.independent_b using parquet as select id from range(2000)"]
    result = dbt("run-operation", "run_independent", "--args", json.dumps({"statements": statements}))
    assert not result.success
    assert "no_such_table" in result.error and "(in: insert into analytics.no_such_table values (1))" in result.error
    assert spark.table("analytics.independent_a").count() == 1000
    assert spark.table("analytics.independent_b").count() == 2000


def test_statements_run_at_once_return_their_rows_in_order(spark, dbt):
    """A plan reads the file listing and the current states at once, a merge measures the run's own
    states beside its inserts: each statement's rows come back in the order of the statements."""
    import json

    spark.sql("drop table if exists analytics.independent_c")
    statements = ["select id, cast(id * 2 as string) as twice from range(3) order by id",
                  "create table analytics.independent_c using parquet as select 1 as one",
                  "select 'only' as word"]
    result = dbt("run-operation", "run_independent", "--args", json.dumps({"statements": statements}))
    assert result.success, result.error
    logged = next(line for line in result.messages if line.startswith("ROWS: "))
    assert json.loads(logged[len("ROWS: "):]) == [[[0, "0"], [1, "2"], [2, "4"]], [], [["only"]]]
    assert spark.table("analytics.independent_c").count() == 1


def test_the_merge_states_view_keeps_its_analyzed_plan(spark, dbt):
    """On a session the merge's states view is made from a DataFrame, which keeps the plan its
    query had when it was cached: reading the view does not analyze the query again (a view made
    in SQL keeps its text and would, every time; here it would find the redefined source)."""
    import json

    spark.sql("create or replace temp view probe_source as select * from values (1), (2) as t(x)")
    result = dbt("run-operation", "cache_view", "--args", json.dumps({"view": "cached_probe", "select_sql": "select x * 10 as x from probe_source"}))
    assert result.success, result.error
    try:
        assert any("dbt_analyze: caching as `cached_probe`" in m for m in result.messages)
        assert spark.catalog.isCached("cached_probe")
        spark.sql("create or replace temp view probe_source as select * from values (3) as t(x)")
        assert sorted(r["x"] for r in spark.sql("select x from cached_probe").collect()) == [10, 20]
    finally:
        spark.sql("drop view if exists cached_probe")
        spark.sql("drop view if exists probe_source")


def test_a_run_leaves_no_cached_states_behind(spark, dbt):
    """The merge's states view and its cache end with the run (dropping the view drops its cache)."""
    spark.sql("drop table if exists analytics.cache_free")
    spark.sql("create table analytics.cache_free (v int, p int) using parquet partitioned by (p)")
    spark.sql("insert into analytics.cache_free values (1, 1), (2, 2)")
    assert analyze(dbt, relation="analytics.cache_free", columns="all").success  # the scan is the states view
    spark.sql("insert into analytics.cache_free values (3, 2)")
    assert analyze(dbt, relation="analytics.cache_free", columns="all").success  # the states are read into it
    assert not [r for r in rows(spark, "show views") if r["viewName"].startswith("dbt_analyze_states_")]
    assert spark._jsparkSession.sharedState().cacheManager().isEmpty()


def test_a_cached_view_whose_query_fails_is_named_in_the_error(spark, dbt):
    """A scan of every partition is cached as the merge's states: when it fails, dbt's error says
    why and in which statement, as for any other statement of a run."""
    import json

    result = dbt("run-operation", "cache_view", "--args", json.dumps({"view": "failing_probe", "select_sql": "select assert_true(id < 2) as ok from range(5)"}))
    assert not result.success
    assert "id < 2" in result.error and "(in: select assert_true(id < 2) as ok from range(5))" in result.error
    spark.sql("drop view if exists failing_probe")


def test_a_column_added_on_unchanged_files_is_collected(spark, dbt):
    spark.sql("drop table if exists analytics.evolving")
    spark.sql("create table analytics.evolving (a int, b string, p int) using parquet partitioned by (p)")
    spark.sql("insert into analytics.evolving values (1, 'x', 1), (2, 'y', 2)")
    assert analyze(dbt, relation="analytics.evolving", columns="all").success
    assert set(column_stats(spark, "analytics.evolving")) == {"a", "b"}

    # The files do not change, the schema does: the partitions' states lack the new column.
    spark.sql("alter table analytics.evolving add columns (c double)")
    result = analyze(dbt, relation="analytics.evolving", columns="all")
    assert result.success, result.error
    assert "2 of 2 partition(s), 3 column(s)" in result.log
    stats = column_stats(spark, "analytics.evolving")
    assert set(stats) == {"a", "b", "c"} and stats["c"]["null_count"] == 2
    assert table_stats(spark, "analytics.evolving")[""]["row_count"] == 2


def committer_options(spark, table: str) -> str:
    create = spark.sql(f"show create table analytics_stats.{table}").collect()[0][0]
    return " ".join(line.strip() for line in create.splitlines() if "fileoutputcommitter" in line)


def bucketing(spark, table: str) -> dict:
    described = spark.sql(f"describe table extended analytics_stats.{table}").collect()
    return {r[0]: r[1] for r in described if r[0] in ("Num Buckets", "Bucket Columns")}


def test_storage_of_an_older_version_is_upgraded_in_place_with_its_statistics(spark, dbt):
    """Storage version 2 set the committer per write; version 3 keeps it as table options, which
    Spark applies to every write into the table (what keeps concurrent runs from deleting each
    other's _temporary files); version 4 buckets every table by table_name into 64 buckets,
    version 5 into 8."""
    spark.sql("drop table if exists analytics.upgraded")
    spark.sql("create table analytics.upgraded using parquet as select id as v from range(100)")
    assert analyze(dbt, relation="analytics.upgraded", columns="all").success
    assert committer_options(spark, "partition_states") == (
        "'mapreduce.fileoutputcommitter.algorithm.version' = '2', 'mapreduce.fileoutputcommitter.cleanup.skipped' = 'true')")
    others = "table_name <> 'upgraded'"
    kinds = ("table_statistics", "column_statistics", "column_histograms", "column_top_values")
    before = snapshot(spark, others, kinds)
    states_of_others = f"select count(*) from analytics_stats.partition_states where {others}"
    states_before = spark.sql(states_of_others).collect()[0][0]
    # an older storage: version 2, two of its tables without the options, one not bucketed
    # (version 3 and older), one in version 4's 64 buckets
    for table, bucketed in (("partition_states", ""), ("column_statistics_history", "clustered by (table_name) into 64 buckets")):
        spark.sql(f"create table analytics_stats.{table}_v2 using parquet {bucketed} as select * from analytics_stats.{table}")
        spark.sql(f"drop table analytics_stats.{table}")
        spark.sql(f"alter table analytics_stats.{table}_v2 rename to analytics_stats.{table}")
    assert not bucketing(spark, "partition_states")
    assert bucketing(spark, "column_statistics_history")["Num Buckets"] == "64"
    spark.sql("alter table analytics_stats.analyze_run_events set tblproperties ('dbt_analyze.storage_version' = '2')")
    temporary = f"{HOME}/spark-warehouse/analytics_stats.db/partition_states/_temporary"
    shutil.rmtree(temporary, ignore_errors=True)

    spark.sql("insert into analytics.upgraded select 100")
    result = analyze(dbt, relation="analytics.upgraded", columns="all")
    assert result.success, result.error
    assert "upgraded to storage version 5" in result.log
    for table in ("partition_states", "column_statistics_history"):
        assert "'mapreduce.fileoutputcommitter.cleanup.skipped' = 'true'" in committer_options(spark, table)
    stored = spark.sql("show tblproperties analytics_stats.analyze_run_events ('dbt_analyze.storage_version')").collect()[0][-1]
    assert stored == "5"
    # both rebuilt bucketed, every row in its table's bucket file (the run above added its own states)
    for table in ("partition_states", "column_statistics_history"):
        assert bucketing(spark, table) == {"Num Buckets": "8", "Bucket Columns": "[`table_name`]"}
        misplaced = spark.sql(f"""select count(*) from analytics_stats.{table}
                                  where cast(regexp_extract(input_file_name(), '_([0-9]{{5}})[.]', 1) as int) <> pmod(hash(table_name), 8)""")
        assert misplaced.collect()[0][0] == 0
    assert spark.sql(states_of_others).collect()[0][0] == states_before
    # the write after the upgrade used the table's options: _temporary was left in place
    assert os.path.isdir(temporary)
    assert table_stats(spark, "analytics.upgraded")[""]["row_count"] == 101
    assert column_stats(spark, "analytics.upgraded")["v"]["max_value"] == "100"
    assert snapshot(spark, others, kinds) == before  # every other table's statistics came through the upgrade unchanged
