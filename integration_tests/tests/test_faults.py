"""Faults and schema changes: nothing current is lost when a run fails, and stale column states
are never merged with new ones."""

import glob
import os
import shutil

from conftest import HOME, analyze, column_stats, rows, statements_sent, table_stats


def snapshot(spark, where: str = "true", kinds=("table_statistics", "column_statistics", "column_histograms"), without=()):
    # repr: NaN statistics compare equal to themselves
    def columns(name: str) -> str:
        return ", ".join(c for c in spark.table(f"analytics_stats.{name}").columns if c not in without)

    return repr([rows(spark, f"select {columns(name)} from analytics_stats.{name} where {where} order by all") for name in kinds])


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


def statistics_writes(result) -> dict[str, int]:
    """How many statements of a dbt command inserted into each storage table."""
    found = {}
    for table in ("statistics_history", "analyze_run_events"):
        found[table] = len(statements_sent(result, f"insert into `analytics_stats`.`{table}`"))
    return found


def statistics_reads(result) -> int:
    """How many statements of a dbt command read the current states (_current_states_read_sql)."""
    return len(statements_sent(result, "max_by(run_id, event_at) as run_id from `analytics_stats`.`analyze_run_events`"))


def test_a_run_writes_its_statistics_in_one_statement_and_records_how_many_it_sent(spark, dbt):
    """Table, partition and column rows, quantiles, histograms and top values go into one table by
    one INSERT; the events are the only other writes. A full run of an unpartitioned table sends 7
    statements, an incremental run of a partitioned one 10 (analyze_runs.statements; targets: at most 8 and 10);
    on a session the INSERT's SELECT runs in two halves, each a statement.
    The write itself takes what the run stored (rows, bytes, sketch bytes): nothing reads it back."""
    spark.sql("drop table if exists analytics.one_write")
    spark.sql("""create table analytics.one_write using parquet as
                 select id, cast(id % 7 as int) as small, id * 0.5 as half, cast(id % 13 as string) as label, id % 2 = 0 as even,
                        date_add(date'2024-01-01', cast(id % 30 as int)) as day, cast(id as decimal(12, 2)) as amount, repeat('x', cast(id % 5 as int)) as pad
                 from range(1000)""")
    assert analyze(dbt, relation="analytics.one_write", columns="all").success  # the storage exists from here on
    result = analyze(dbt, relation="analytics.one_write", columns="all", full=True)
    assert result.success, result.error
    assert statistics_writes(result) == {"statistics_history": 1, "analyze_run_events": 2}
    run = rows(spark, """select statements, rows_scanned, bytes_scanned, sketch_bytes from analytics_stats.analyze_runs
                         where table_name = 'one_write' order by started_at desc limit 1""")[0]
    assert run["statements"] == 7 and run["rows_scanned"] == 1000, run
    assert run["bytes_scanned"] == table_stats(spark, "analytics.one_write")[""]["size_bytes"] and run["sketch_bytes"] > 0, run
    assert "1000 rows" in result.log
    # a full run of every column of an unpartitioned table reads no earlier states; a run that may skip reads them
    assert statistics_reads(result) == 0
    again = analyze(dbt, relation="analytics.one_write", columns="all")
    assert again.success and "unchanged since its last analysis" in again.log and statistics_reads(again) == 1
    assert len(rows(spark, "select * from analytics_stats.column_histograms where table_name = 'one_write' and column_name = 'id'")) == 254

    spark.sql("drop table if exists analytics.one_write_days")
    spark.sql("create table analytics.one_write_days using parquet partitioned by (day) as select id, cast(id % 5 as int) as day from range(500)")
    assert analyze(dbt, relation="analytics.one_write_days", columns="all").success
    spark.sql("insert into analytics.one_write_days select id, 9 from range(100)")
    result = analyze(dbt, relation="analytics.one_write_days", columns="all")
    assert result.success, result.error
    assert statistics_writes(result) == {"statistics_history": 1, "analyze_run_events": 2}
    last = rows(spark, """select run_id, statements, rows_scanned from analytics_stats.analyze_runs where table_name = 'one_write_days'
                          order by started_at desc limit 1""")[0]
    assert last["statements"] == 10 and last["rows_scanned"] == 100, last
    # only the scanned partition's rows are written again; the table's current rows name the others' runs
    written = rows(spark, f"select distinct partition_spec from analytics_stats.statistics_history where run_id = '{last['run_id']}'")
    assert sorted(r["partition_spec"] for r in written) == ["", "day=9"]
    assert table_stats(spark, "analytics.one_write_days")[""]["row_count"] == 600
    assert len(table_stats(spark, "analytics.one_write_days")) == 7


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


V5_KINDS = ("table_statistics", "column_statistics", "column_quantiles", "column_histograms", "column_top_values")
# what version 8 added: the sketches' sample (columns of the views and of statistics_history)
ADDED_IN_8 = ("sketch_values", "sketch_rate", "state_sketch_values", "state_sketch_rate")


def test_storage_of_an_older_version_is_upgraded_in_place_with_its_statistics(spark, dbt):
    """Storage version 5 and older kept partition_states and one table per statistic kind, each
    run writing a full snapshot of its table; version 6 keeps them in statistics_history (and
    versions 7 and 8 more columns of it, last: upgraded from 6 here too). Built
    here from the current statistics as version 5 held them (each table's current rows as its
    latest run's snapshot, unbucketed like version 3), then upgraded by the next run: every other
    table's current statistics come through unchanged, and runs go on incrementally."""
    spark.sql("drop table if exists analytics.upgraded")
    spark.sql("create table analytics.upgraded using parquet partitioned by (p) as select id as v, cast(id % 3 as int) as p from range(100)")
    assert analyze(dbt, relation="analytics.upgraded", columns="all").success
    spark.sql("insert into analytics.upgraded select 100, 5")
    assert analyze(dbt, relation="analytics.upgraded", columns="all").success  # partition rows of two runs
    others = "table_name <> 'upgraded'"
    kinds = V5_KINDS
    # version 5 kept each table's rows under its latest run (the rows built below do too)
    before = snapshot(spark, others, kinds, without=("run_id", "state_run_id") + ADDED_IN_8)
    upgraded_before = snapshot(spark, "table_name = 'upgraded'", kinds)
    latest = "(select table_schema, table_name, max_by(run_id, event_at) as latest from analytics_stats.analyze_run_events where event = 'succeeded' group by 1, 2)"
    for kind in kinds:
        columns = ", ".join(f"c.{name}" for name in spark.table(f"analytics_stats.{kind}").columns
                            if name != "run_id" and name not in ADDED_IN_8)
        spark.sql(f"""create table analytics_stats.{kind}_v5 using parquet as
                      select l.latest as run_id, {columns} from analytics_stats.{kind} c
                      join {latest} l on l.table_schema = c.table_schema and l.table_name = c.table_name""")
    spark.sql("create table analytics_stats.partition_states_v5 using parquet as select * except ("
              + ", ".join(c for c in ADDED_IN_8 if c in spark.table("analytics_stats.partition_states").columns)
              + ") from analytics_stats.partition_states")
    for view in [f"{kind}_history" for kind in kinds] + ["partition_states"]:
        spark.sql(f"drop view analytics_stats.{view}")
    spark.sql("drop table analytics_stats.statistics_history")
    for kind in kinds:
        spark.sql(f"alter table analytics_stats.{kind}_v5 rename to analytics_stats.{kind}_history")
    spark.sql("alter table analytics_stats.partition_states_v5 rename to analytics_stats.partition_states")
    spark.sql("alter table analytics_stats.analyze_run_events set tblproperties ('dbt_analyze.storage_version' = '5')")

    spark.sql("insert into analytics.upgraded select 101, 5")
    result = analyze(dbt, relation="analytics.upgraded", columns="all")
    assert result.success, result.error
    assert "upgraded to storage version 9" in result.log
    assert "scanning analytics.upgraded: 1 of 4 partition(s)" in result.log  # the states came through
    stored = spark.sql("show tblproperties analytics_stats.analyze_run_events ('dbt_analyze.storage_version')").collect()[0][-1]
    assert stored == "9"
    assert bucketing(spark, "statistics_history") == {"Num Buckets": "8", "Bucket Columns": "[`table_name`]"}
    assert "'mapreduce.fileoutputcommitter.cleanup.skipped' = 'true'" in committer_options(spark, "statistics_history")
    assert table_stats(spark, "analytics.upgraded")[""]["row_count"] == 102
    assert column_stats(spark, "analytics.upgraded")["v"]["max_value"] == "101"
    unchanged = snapshot(spark, others, kinds, without=("run_id", "state_run_id") + ADDED_IN_8) == before
    assert unchanged, "the upgrade changed other tables' statistics"
    assert upgraded_before != snapshot(spark, "table_name = 'upgraded'", kinds)

    # Version 7 added statistics_history.top_values_truncated (a column's most common values cut
    # by its sketch), version 8 the sketches' sample (state_sketch_values, state_sketch_rate,
    # sketch_values), each appended. Built here as version 6 held statistics_history, the same table
    # without those columns, then upgraded by the next run in place: every row kept, the
    # statistics read the same.
    history = "analytics_stats.statistics_history"
    added = ["top_values_truncated", "state_sketch_values", "state_sketch_rate", "sketch_values"]
    assert spark.table(history).columns[-4:] == added
    columns = ", ".join(f"`{c}`" for c in spark.table(history).columns if c not in added)
    spark.sql("drop table if exists analytics_stats.statistics_history_v6")
    spark.sql(f"""create table analytics_stats.statistics_history_v6 using parquet
                  clustered by (table_name) sorted by (table_schema, table_name, run_id) into 8 buckets
                  as select {columns} from {history}""")
    stored = spark.table(history).count()
    before = snapshot(spark, others, kinds, without=ADDED_IN_8)
    spark.sql(f"drop table {history}")
    spark.sql(f"alter table analytics_stats.statistics_history_v6 rename to {history}")
    spark.sql("alter table analytics_stats.analyze_run_events set tblproperties ('dbt_analyze.storage_version' = '6')")
    result = analyze(dbt, relation="analytics.upgraded", columns="all", full=True)
    assert result.success, result.error
    assert "upgraded to storage version 9" in result.log
    assert spark.table(history).columns[-4:] == added
    latest = rows(spark, "select max(run_id) as run_id from analytics_stats.analyze_runs where table_name = 'upgraded'")[0]["run_id"]
    assert spark.table(history).where(f"run_id <> '{latest}'").count() == stored
    assert snapshot(spark, others, kinds, without=ADDED_IN_8) == before
    assert column_stats(spark, "analytics.upgraded")["v"]["max_value"] == "101"

