"""Incremental ANALYZE: unchanged partitions are skipped, changed/new/dropped ones are found from
the file listing, and table statistics are merged from partition states without a table scan."""

import json
import os
import re
import shutil
from pathlib import Path

import pytest
from conftest import analyze, column_stats, rows, spark_size_bytes, statements_sent, table_location, table_stats

T = "analytics.visits"


def states_count(spark):
    return rows(spark, "select count(*) as n from analytics_stats.partition_states")[0]["n"]


@pytest.fixture(scope="module")
def visits(spark, dbt):
    spark.sql("create database if not exists analytics")
    spark.sql(f"drop table if exists {T}")
    spark.sql(f"create table {T} (user_id bigint, page string, ok boolean, ms double, day int) using parquet partitioned by (day)")
    spark.sql(f"""insert into {T} select id, concat('p', id % 13), id % 3 = 0, id * 1.5, cast(id % 3 as int)
                  from range(3000)""")
    result = analyze(dbt, relation=T, columns="all")
    assert result.success, result.error
    assert "3 of 3 partition(s)" in result.log
    return result


def assert_merge_equals_scan(spark, table):
    """Table statistics merged from partitions equal direct aggregates over the whole table."""
    merged = column_stats(spark, table)
    exact = rows(spark, f"""select count(*) - count(user_id) as n_user, min(user_id) as min_user, max(user_id) as max_user,
                                   max(length(page)) as max_page, avg(length(page)) as avg_page, count_if(ok) as t, count_if(not ok) as f,
                                   avg(ms) as mean_ms, stddev(ms) as sd_ms, count(distinct user_id) as ndv_user, count(*) as n
                            from {table}""")[0]
    assert merged["user_id"]["null_count"] == exact["n_user"]
    assert merged["user_id"]["min_value"] == str(exact["min_user"]) and merged["user_id"]["max_value"] == str(exact["max_user"])
    assert merged["page"]["max_len"] == exact["max_page"] and merged["page"]["avg_len"] == pytest.approx(exact["avg_page"])
    assert merged["ok"]["true_count"] == exact["t"] and merged["ok"]["false_count"] == exact["f"]
    assert merged["ms"]["mean"] == pytest.approx(exact["mean_ms"]) and merged["ms"]["stddev"] == pytest.approx(exact["sd_ms"])
    assert abs(merged["user_id"]["distinct_count"] - exact["ndv_user"]) <= 0.02 * exact["ndv_user"]
    assert table_stats(spark, table)[""]["row_count"] == exact["n"]


def test_first_collection_merges_partitions(spark, visits):
    assert_merge_equals_scan(spark, T)
    tables = table_stats(spark, T)
    assert sorted(tables) == ["", "day=0", "day=1", "day=2"]
    assert tables[""]["partitions_analyzed"] == tables[""]["partition_count"] == 3


def test_unchanged_table_is_skipped_and_writes_no_states(spark, dbt, visits):
    before = states_count(spark)
    result = analyze(dbt, relation=T, columns="all")
    assert result.success, result.error
    assert "unchanged since its last analysis (3 partition(s) skipped)" in result.log
    assert states_count(spark) == before
    run = rows(spark, "select * from analytics_stats.analyze_runs order by started_at desc limit 1")[0]
    assert run["status"] == "succeeded" and run["targets_scanned"] == 0 and run["partitions_skipped"] == 3


def test_new_and_changed_partitions_only_are_scanned(spark, dbt, visits):
    spark.sql(f"insert into {T} values (99999, 'new', true, 1.0, 1), (100000, 'newer', null, null, 7)")
    result = analyze(dbt, relation=T, columns="all")
    assert result.success, result.error
    assert "scanning analytics.visits: 2 of 4 partition(s)" in result.log
    assert "2 skipped" in result.log
    assert table_stats(spark, T)["day=7"]["row_count"] == 1
    assert_merge_equals_scan(spark, T)


def test_rewritten_partition_is_detected(spark, dbt, visits):
    spark.sql(f"insert overwrite table {T} partition (day = 2) select id, 'rewritten', false, 0.0 from range(10)")
    result = analyze(dbt, relation=T, columns="all")
    assert result.success, result.error
    assert "1 of 4 partition(s)" in result.log
    assert table_stats(spark, T)["day=2"]["row_count"] == 10
    assert_merge_equals_scan(spark, T)


def test_dropped_partition_leaves_the_merge(spark, dbt, visits):
    spark.sql(f"alter table {T} drop partition (day = 7)")
    result = analyze(dbt, relation=T, columns="all")
    assert result.success, result.error
    assert "1 dropped" in result.log
    assert "day=7" not in table_stats(spark, T)
    assert_merge_equals_scan(spark, T)
    # Its state stays in the history, but the table's statistics no longer count it: nothing to
    # do again (each run used to merge the table anew).
    again = analyze(dbt, relation=T, columns="all")
    assert again.success and "unchanged since its last analysis" in again.log, again.log[-2000:]


def test_full_rescans_everything(spark, dbt, visits):
    result = analyze(dbt, relation=T, columns="all", full=True)
    assert result.success, result.error
    assert "3 of 3 partition(s)" in result.log
    assert_merge_equals_scan(spark, T)


def test_the_merge_reads_the_states_of_current_runs_only(spark, dbt, visits):
    """A merge reads the states it merges, not the table's history: after the full rescan, the
    earlier runs' states are all replaced, and an incremental run reads the full run's and its own.
    Its SQL names the partition it scans, not those it keeps (their runs' table row maps them)."""
    runs = lambda: [r["run_id"] for r in rows(spark, "select distinct run_id from analytics_stats.partition_states where table_name = 'visits'")]
    current = rows(spark, """select max_by(run_id, collected_at) as run_id from analytics_stats.partition_states
                             where table_name = 'visits' and partition_spec <> 'day=7' group by partition_spec""")
    assert len({r["run_id"] for r in current}) == 1  # the full rescan's
    before = runs()
    assert len(before) >= 4
    spark.sql(f"insert into {T} values (5, 'again', true, 2.0, 0)")
    result = analyze(dbt, relation=T, columns="all")
    assert result.success, result.error
    assert "1 of 3 partition(s)" in result.log
    new_run = (set(runs()) - set(before)).pop()
    # the one statement that scans and merges reads the stored states of the full rescan's run only
    [insert] = statements_sent(result, "insert into `analytics_stats`.`statistics_history`")
    read = set(re.search(r"s\.run_id in \(([^)]*)\)", insert).group(1).replace("'", "").split(", "))
    assert read == {current[0]["run_id"]} and new_run not in read
    latest = rows(spark, "select partition_spec, max_by(run_id, collected_at) as run_id from analytics_stats.partition_states"
                         " where table_name = 'visits' group by partition_spec")
    scanned = {r["partition_spec"] for r in latest if r["run_id"] == new_run}
    kept = {r["partition"] for r in rows(spark, f"show partitions {T}")} - scanned
    assert len(scanned) == 1 and len(kept) == 2
    assert all(f"'{spec}'" in insert for spec in scanned) and not any(f"'{spec}'" in insert for spec in kept)
    assert_merge_equals_scan(spark, T)


def test_a_run_that_adds_partitions_merges_the_tables_merged_state_with_theirs(spark, dbt):
    """A partitioned table's rows carry its merged state (no partition's: partition_states leaves
    it out). A run that only adds partitions merges that state with theirs alone: its write names
    none of the stored partitions and reads no partition_runs. Its statistics are those of every
    partition's state merged: the same rows analyzed as one table. A changed partition takes the
    partitions' states again, and the merged state it writes serves the next added partition."""
    def insert(name, partitions, first, count):
        spark.sql(f"""insert into analytics.{name} select id * 7 % 1000, concat('s', id % 37),
                      date_add('2024-01-01', cast(id % 90 as int)), id % 4 = 0, cast(id % {partitions} + {first} as int)
                      from range({count})""")

    def write_of(result):
        assert result.success, result.error
        [write] = statements_sent(result, "insert into `analytics_stats`.`statistics_history`")
        return write

    for name in ("grown", "whole"):
        spark.sql(f"drop table if exists analytics.{name}")
        spark.sql(f"create table analytics.{name} (v bigint, s string, d date, b boolean, p int) using parquet partitioned by (p)")
    insert("grown", 3, 0, 3000)
    assert analyze(dbt, relation="analytics.grown", columns="all").success
    carried = rows(spark, """select column_name, state_sketches, state_collected_at, partitions_analyzed
                             from analytics_stats.statistics_history where table_name = 'grown' and partition_spec = ''""")
    assert sorted(r["column_name"] for r in carried) == ["", "b", "d", "s", "v"]
    assert all(r["state_sketches"] == "full" and r["state_collected_at"] is None and r["partitions_analyzed"] == 3
               for r in carried)
    assert not rows(spark, "select 1 from analytics_stats.partition_states where table_name = 'grown' and partition_spec = ''")

    insert("grown", 2, 3, 2000)
    added = analyze(dbt, relation="analytics.grown", columns="all")
    write = write_of(added)
    assert "scanning analytics.grown: 2 of 5 partition(s)" in added.log
    assert "partition_runs) p" not in write and "p=0" not in write and "state_sketches is not null" in write

    spark.sql("insert into analytics.whole select * from analytics.grown")
    assert analyze(dbt, relation="analytics.whole", columns="all").success
    grown, whole = column_stats(spark, "analytics.grown"), column_stats(spark, "analytics.whole")
    assert sorted(grown) == sorted(whole) == ["b", "d", "s", "v"]
    for column in grown:
        for stat in ("null_count", "min_value", "max_value", "avg_len", "max_len", "true_count", "false_count"):
            assert grown[column][stat] == whole[column][stat], (column, stat)
        for stat in ("mean", "stddev"):
            assert grown[column][stat] == pytest.approx(whole[column][stat]), (column, stat)
        assert abs(grown[column]["distinct_count"] - whole[column]["distinct_count"]) <= 0.01 * whole[column]["distinct_count"]
    table = table_stats(spark, "analytics.grown")[""]
    assert table["row_count"] == 5000 and table["partitions_analyzed"] == table["partition_count"] == 5
    top = lambda name: rows(spark, f"""select column_name, rank, value, frequency from analytics_stats.column_top_values
                                      where table_name = '{name}' and partition_spec = '' and column_name <> 'v'
                                      order by column_name, rank""")
    assert top("grown") == top("whole") and len(top("grown")) > 40  # fewer items than the sketch tracks: exact
    quantiles = lambda name: {(r["column_name"], r["quantile"]): r["value"] for r in rows(spark,
        f"select column_name, quantile, value from analytics_stats.column_quantiles where table_name = '{name}' and partition_spec = ''")}
    assert quantiles("grown").keys() == quantiles("whole").keys()
    for key, value in quantiles("whole").items():
        if key[0] == "v":
            assert abs(int(quantiles("grown")[key]) - int(value)) <= 10, key
    bins = "select count(*) as n, sum(row_count) as r from analytics_stats.column_histograms where table_name = '{}' and column_name = 'v'"
    assert rows(spark, bins.format("grown")) == rows(spark, bins.format("whole"))

    spark.sql("insert overwrite table analytics.grown partition (p = 0) select 1, 'x', date'2024-01-01', true")
    changed = write_of(analyze(dbt, relation="analytics.grown", columns="all"))
    assert "partition_runs) p" in changed
    insert("grown", 1, 5, 10)
    write_of(analyze(dbt, relation="analytics.grown", columns="all"))
    assert table_stats(spark, "analytics.grown")[""]["row_count"] == rows(spark, "select count(*) as n from analytics.grown")[0]["n"]
    assert column_stats(spark, "analytics.grown")["v"]["min_value"] == "0"
    assert column_stats(spark, "analytics.grown")["b"]["true_count"] == rows(
        spark, "select count_if(b) as n from analytics.grown")[0]["n"]


def test_history_is_kept(spark, visits):
    snapshots = rows(spark, """select count(distinct run_id) as n from analytics_stats.table_statistics_history
                                where table_name = 'visits' and partition_spec = ''""")[0]["n"]
    assert snapshots >= 4


def test_noscan_reports_size_and_files_from_the_listing(spark, dbt):
    spark.sql("drop table if exists analytics.noscan_only")
    spark.sql("create table analytics.noscan_only using parquet as select id from range(100)")
    result = analyze(dbt, statement="ANALYZE TABLE analytics.noscan_only COMPUTE STATISTICS NOSCAN")
    assert result.success, result.error
    stats = table_stats(spark, "analytics.noscan_only")[""]
    spark.sql("analyze table analytics.noscan_only compute statistics noscan")
    assert stats["row_count"] is None  # nothing was scanned
    assert stats["size_bytes"] == spark_size_bytes(spark, "analytics.noscan_only") and stats["file_count"] >= 1


def test_partitions_kept_outside_the_table_directory_are_listed_where_they_are(spark, dbt, tmp_path):
    """ALTER TABLE ... ADD PARTITION ... LOCATION: one partition kept elsewhere and one under another
    name inside the table's directory. Sizes equal Spark's, a change there is noticed, and a
    directory that is no partition's counts for none."""
    table = "analytics.relocated"
    spark.sql(f"drop table if exists {table}")
    spark.sql(f"create table {table} (v int, s string) partitioned by (p string) stored as parquet")
    root = table_location(spark, table)
    spark.sql(f"insert into {table} partition (p = 'a') values (1, 'x'), (2, 'y')")
    spark.sql(f"alter table {table} add partition (p = 'b/c') location '{tmp_path / 'elsewhere'}'")
    spark.sql(f"insert into {table} partition (p = 'b/c') values (3, 'z')")
    spark.sql(f"alter table {table} add partition (p = 'd') location '{root}/kept_as_d'")
    spark.sql(f"insert into {table} partition (p = 'd') values (4, 'w'), (5, 'v')")
    spark.sql(f"alter table {table} add partition (p = 'e')")  # empty, in its default directory
    specs = ["p=a", "p=b%2Fc", "p=d", "p=e"]

    result = analyze(dbt, relation=table, columns="all")
    assert result.success, result.error
    spark.sql(f"analyze table {table} partition (p) compute statistics noscan")
    sparks = {spec: spark_size_bytes(spark, table, f"p = '{value}'") for spec, value in zip(specs, ["a", "b/c", "d", "e"])}
    stats = table_stats(spark, table)
    assert {spec: stats[spec]["size_bytes"] for spec in specs} == sparks and sparks["p=b%2Fc"] > 0 and sparks["p=d"] > 0
    assert stats[""]["size_bytes"] == sum(sparks.values())  # the files of kept_as_d count once
    assert [stats[spec]["row_count"] for spec in specs] == [2, 1, 2, 0]

    result = analyze(dbt, relation=table, columns="all")
    assert "unchanged since its last analysis (4 partition(s) skipped)" in result.log
    spark.sql(f"insert into {table} partition (p = 'b/c') values (6, 'u')")
    result = analyze(dbt, relation=table, columns="all")
    assert result.success, result.error
    assert "1 of 4 partition(s)" in result.log
    assert table_stats(spark, table)["p=b%2Fc"]["row_count"] == 2 and column_stats(spark, table)["v"]["max_value"] == "6"


def test_python_lists_local_files_as_sparks_listing_does(spark, dbt, tmp_path):
    """On a session, Python lists a run's local files without a Spark job; Spark's binaryFile
    listing, which Thrift connections keep, is what it must equal: the files Spark's file index
    hides (names starting with `_` or `.`, `._COPYING_`; not a `_metadata` directory) left out,
    specs from the last directories of a path, a partition kept elsewhere under its own spec, and
    the newest modification to the microsecond."""
    table = "analytics.listed"
    spark.sql(f"drop table if exists {table}")
    spark.sql(f"create table {table} (v int, p string) using parquet partitioned by (p)")
    spark.sql(f"insert into {table} values (1, 'a'), (2, 'b c'), (3, 'd/e')")
    root = Path(table_location(spark, table).removeprefix("file:"))
    elsewhere = tmp_path / "elsewhere"
    for name in ["p=a/_temporary/0/part-x", "p=a/.part-y.crc", "p=a/nested/deeper/part-z", "_p=kept/part",
                 "_hidden/part", "p=b c/_SUCCESS", "p=b c/_metadata", "_metadata/part-m", "part-in-root", "p=a/part-w._COPYING_"]:
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text("x" * len(name))
    (elsewhere / "sub").mkdir(parents=True)
    (elsewhere / "sub" / "part-0").write_text("abc")
    branches = [{"location": f"file:{root}", "depth": 1}, {"location": f"file:{elsewhere}", "spec": "p=f"},
                {"location": f"file:{root}", "table_index": 1}]
    result = dbt("run-operation", "print_listings", "--args", json.dumps({"branches": branches}))
    assert result.success, result.error
    listings = json.loads(next(m for m in result.messages if m.startswith("LISTINGS: "))[len("LISTINGS: "):])
    assert sorted(listings["python"]) == sorted(listings["spark"]), listings
    files = {(index, spec): count for index, spec, count, _, _ in listings["python"]}
    assert files == {(0, "p=a"): 1, (0, "deeper"): 1, (0, "_p=kept"): 1, (0, "p=b c"): 1, (0, "p=d%2Fe"): 1,
                     (0, "_metadata"): 1, (0, root.name): 1, (0, "p=f"): 1, (1, ""): 7}, files


def staleness(spark):
    found = rows(spark, "select * from analytics_stats.table_staleness where table_schema = 'stale_db'")
    return {(r["table_name"], r["partition_spec"]): r["status"] for r in found}


def test_analyze_stale_finds_and_refreshes_only_what_changed(spark, dbt):
    spark.sql("create database if not exists stale_db")
    for name in ("parts", "flat"):
        spark.sql(f"drop table if exists stale_db.{name}")
    spark.sql("create table stale_db.parts (v int, p int) using parquet partitioned by (p)")
    spark.sql("insert into stale_db.parts values (1, 1), (2, 2)")
    spark.sql("create table stale_db.flat using parquet as select 1 as v")
    for name in ("parts", "flat"):
        assert analyze(dbt, relation=f"stale_db.{name}", columns="all").success

    check = dbt("run-operation", "analyze_stale", "--args", "{check_only: true, schema: stale_db}")
    assert check.success, check.error
    assert "2 analyzed table(s); all fresh" in check.log
    assert set(staleness(spark).values()) == {"fresh"}
    # the current states of both tables are read by one query, not one per table (statements run
    # at once are logged by the package); their files, local to this session, by Python, by no query
    statements = [m for m in check.messages if m.startswith("On macro_analyze_stale:") or "dbt_analyze: running" in m]
    assert len([m for m in statements if "from binaryFile." in m]) == 0, statements
    assert len([m for m in statements if "s.state_files_modified_at" in m]) == 1, statements

    spark.sql("insert into stale_db.parts values (3, 1), (4, 3)")
    spark.sql("insert overwrite table stale_db.flat select 2 as v union all select 3")
    check = dbt("run-operation", "analyze_stale", "--args", "{check_only: true, schema: stale_db}")
    assert check.success, check.error
    assert "stale_db.parts: p=1 (stale), p=3 (new)" in check.log
    assert "stale_db.flat: the table (stale)" in check.log
    # progress, table by table, as each is checked
    assert "analyze_stale: table 1 of 2: stale_db.flat: the table (stale)" in check.log
    assert "analyze_stale: table 2 of 2: stale_db.parts: p=1 (stale), p=3 (new)" in check.log
    assert staleness(spark) == {("parts", ""): "stale", ("parts", "p=1"): "stale", ("parts", "p=2"): "fresh",
                                ("parts", "p=3"): "new", ("flat", ""): "stale"}
    assert table_stats(spark, "stale_db.parts")[""]["row_count"] == 2  # nothing re-analyzed yet

    refresh = dbt("run-operation", "analyze_stale", "--args", "{schema: stale_db}")
    assert refresh.success, refresh.error
    assert "stale_db.parts: re-analyzed p=1, p=3" in refresh.log
    assert "scanning stale_db.parts: 2 of 3 partition(s)" in refresh.log
    assert set(staleness(spark).values()) == {"fresh"}
    assert table_stats(spark, "stale_db.parts")[""]["row_count"] == 4
    assert table_stats(spark, "stale_db.flat")[""]["row_count"] == 2

    # A dropped partition makes its table stale until a merge leaves it out; not after.
    spark.sql("alter table stale_db.parts drop partition (p = 2)")
    check = dbt("run-operation", "analyze_stale", "--args", "{check_only: true, schema: stale_db}")
    assert "stale_db.parts: p=2 (dropped)" in check.log and staleness(spark)[("parts", "p=2")] == "dropped"
    refresh = dbt("run-operation", "analyze_stale", "--args", "{schema: stale_db}")
    assert refresh.success and "stale_db.parts: re-analyzed the table, dropped p=2" in refresh.log, refresh.log[-3000:]
    check = dbt("run-operation", "analyze_stale", "--args", "{check_only: true, schema: stale_db}")
    assert "2 analyzed table(s); all fresh" in check.log, check.log[-3000:]
    assert ("parts", "p=2") not in staleness(spark) and table_stats(spark, "stale_db.parts")[""]["row_count"] == 3

    spark.sql("drop table stale_db.flat")
    check = dbt("run-operation", "analyze_stale", "--args", "{check_only: true, schema: stale_db}")
    assert check.success, check.error
    assert "analyze_stale: table 1 of 2: stale_db.flat: dropped" in check.log
    assert staleness(spark)[("flat", "")] == "dropped"


def test_locations_that_no_longer_exist_are_listed_as_empty(spark, dbt, tmp_path):
    """Directories deleted under Spark: an external table's, a partitioned table's whole directory,
    and a partition's kept elsewhere. Spark reads them as empty (its ANALYZE stores 0 bytes, 0
    rows); its binaryFile source stops at a missing path. So the listing leaves such a location
    out and lists the rest again: analyze_stale re-analyzes them as empty and still reaches the
    table that merely changed."""
    spark.sql("create database if not exists gone_db")
    for name in ("external", "parts", "moved", "kept"):
        spark.sql(f"drop table if exists gone_db.{name}")
    spark.sql(f"create table gone_db.external (v int) using parquet location '{tmp_path / 'external'}'")
    spark.sql("insert into gone_db.external values (1), (2)")
    spark.sql("create table gone_db.parts (v int, p int) using parquet partitioned by (p)")
    spark.sql("insert into gone_db.parts values (1, 1), (2, 2)")
    spark.sql("create table gone_db.moved (v int) partitioned by (p int) stored as parquet")
    spark.sql("insert into gone_db.moved partition (p = 1) values (1)")
    spark.sql(f"alter table gone_db.moved add partition (p = 9) location '{tmp_path / 'p9'}'")
    spark.sql("insert into gone_db.moved partition (p = 9) values (9), (10)")
    spark.sql("create table gone_db.kept using parquet as select 1 as v")
    for name in ("external", "parts", "moved", "kept"):
        result = analyze(dbt, relation=f"gone_db.{name}", columns="all")
        assert result.success, result.error

    parts_location = table_location(spark, "gone_db.parts")
    for directory in (tmp_path / "external", parts_location.removeprefix("file:"), tmp_path / "p9"):
        shutil.rmtree(directory)
    spark.sql("insert overwrite table gone_db.kept select 2 as v union all select 3")
    for name in ("external", "parts", "moved"):
        spark.catalog.refreshTable(f"gone_db.{name}")  # this session listed them before; a new dbt process would not have

    refresh = dbt("run-operation", "analyze_stale", "--args", "{schema: gone_db}")
    assert refresh.success, refresh.error
    for gone in (f"gone_db.external: its location file:{tmp_path / 'external'} does not exist",
                 f"gone_db.parts: its location {parts_location} does not exist",
                 f"gone_db.moved partition p=9: its location file:{tmp_path / 'p9'} does not exist"):
        assert gone in refresh.log, refresh.log
    assert table_stats(spark, "gone_db.kept")[""]["row_count"] == 2
    assert {spec: (r["row_count"], r["size_bytes"], r["file_count"]) for spec, r in table_stats(spark, "gone_db.parts").items()} == {
        "": (0, 0, 0), "p=1": (0, 0, 0), "p=2": (0, 0, 0)}
    assert [table_stats(spark, "gone_db.moved")[spec]["row_count"] for spec in ("", "p=1", "p=9")] == [1, 1, 0]
    assert column_stats(spark, "gone_db.moved")["v"]["max_value"] == "1"
    # as Spark's own ANALYZE sees them
    for name in ("external", "parts", "moved"):
        spark.sql(f"analyze table gone_db.{name} compute statistics")
        assert table_stats(spark, f"gone_db.{name}")[""]["size_bytes"] == spark_size_bytes(spark, f"gone_db.{name}")
        assert table_stats(spark, f"gone_db.{name}")[""]["row_count"] == spark.table(f"gone_db.{name}").count()
    assert spark_size_bytes(spark, "gone_db.external") == 0 and table_stats(spark, "gone_db.external")[""]["row_count"] == 0

    check = dbt("run-operation", "analyze_stale", "--args", "{check_only: true, schema: gone_db}")
    assert check.success, check.error
    assert "4 analyzed table(s); all fresh" in check.log


def test_a_run_on_sparks_default_shuffle_partitions_spreads_its_states_over_a_few_tasks(spark, dbt, visits):
    """Users keep spark.sql.shuffle.partitions at 200: adaptive execution coalesces the shuffles of
    a run's statement, so no stage of a run has that many tasks (a run once read 200 partitions of
    a few rows each)."""
    tracker = spark.sparkContext.statusTracker()
    before = set(tracker.getJobIdsForGroup())
    os.environ["DBT_ANALYZE_SHUFFLE_PARTITIONS"] = "200"  # the profile sets it on the session dbt opens
    try:
        result = analyze(dbt, relation=T, columns="all", full=True)
        assert spark.conf.get("spark.sql.shuffle.partitions") == "200"
    finally:
        del os.environ["DBT_ANALYZE_SHUFFLE_PARTITIONS"]
        spark.conf.set("spark.sql.shuffle.partitions", "4")
    assert result.success, result.error
    jobs = [tracker.getJobInfo(job) for job in set(tracker.getJobIdsForGroup()) - before]
    tasks = [tracker.getStageInfo(stage).numTasks for job in jobs if job for stage in job.stageIds if tracker.getStageInfo(stage)]
    assert len(tasks) > 10 and max(tasks) < 200, tasks


def test_many_local_partitions_are_listed_without_a_task_per_directory_and_reported_in_brief(spark, dbt):
    """Spark lists more than 32 directories in a job of a task each, and packs small files 32 to
    a task: 2,000 daily partitions took 6 s to list, every run. A session lists a local table in
    Python, with no job (a Thrift connection's query lists the directories in the driver, in as
    many tasks as cores, under settings of its own); the session's settings stay as they were."""
    table = "many_db.many_days"
    spark.sql("create database if not exists many_db")
    spark.sql(f"drop table if exists {table}")
    spark.sql(f"create table {table} (v bigint, day int) using parquet partitioned by (day)")
    spark.sql(f"insert into {table} select id, cast(id % 60 as int) from range(600)")
    assert analyze(dbt, relation=table, columns="all").success
    spark.sql(f"insert into {table} select id, 60 from range(10)")
    settings = {key: spark.conf.get(key) for key in ("spark.sql.files.maxPartitionBytes", "spark.sql.sources.parallelPartitionDiscovery.threshold")}
    tracker = spark.sparkContext.statusTracker()
    before = set(tracker.getJobIdsForGroup())
    result = analyze(dbt, relation=table, columns="all")
    assert result.success, result.error
    assert "scanned in 1 partition(s), 60 skipped" in result.log
    # the report lists the partitions collected last, not 61 lines
    assert "partition day=60: rows 10" in result.log and "... and 51 more partition(s)" in result.log
    assert len(re.findall(r"^  partition day=", result.log, re.M)) == 10
    jobs = [tracker.getJobInfo(job) for job in set(tracker.getJobIdsForGroup()) - before]
    tasks = [tracker.getStageInfo(stage).numTasks for job in jobs if job for stage in job.stageIds if tracker.getStageInfo(stage)]
    assert len(tasks) > 10 and max(tasks) < 30, tasks  # no job of a task per directory (61)
    assert {key: spark.conf.get(key) for key in settings} == settings
    assert table_stats(spark, table)[""]["row_count"] == 610

    # 25 partitions written to: analyze_stale names 20 and says how many more
    spark.sql(f"insert into {table} select id + 1, cast(id % 25 as int) from range(250)")
    stale = dbt("run-operation", "analyze_stale", "--args", '{schema: many_db, check_only: true}')
    assert stale.success, stale.error
    line = next(m for m in stale.messages if "many_db.many_days: day=" in m and "analyze_stale" not in m)
    assert line.count("(stale)") == 20 and line.endswith("and 5 more"), line


def test_a_run_asks_the_metastore_for_the_partitions_it_scans_only(spark, dbt):
    """A metastore cannot evaluate the spec predicate (a string built from every partition
    column), so beside it the scan names each partition column's values as literals of the
    column's type, which Spark hands to the metastore: planning the write after one new day
    fetches that day, not all 41 partitions (HiveCatalogMetrics). A column holding null in a
    partition to scan is left to the spec predicate, which still prunes it exactly."""
    table = "analytics.pushdown_days"
    spark.sql(f"drop table if exists {table}")
    spark.sql(f"create table {table} (v bigint, region string, day int, d date) using parquet partitioned by (region, day, d)")
    spark.sql(f"insert into {table} select id, 'it''s a/b; --%41=', cast(id % 40 as int), date'2024-01-01' from range(400)")
    assert analyze(dbt, relation=table, columns="all").success
    spark.sql(f"insert into {table} select id, 'it''s a/b; --%41=', 40, date'2024-01-02' from range(7)")
    dry = analyze(dbt, relation=table, columns="all", dry_run=True)
    assert dry.success, dry.error
    insert = dry.messages[next(i for i, m in enumerate(dry.messages) if m.startswith("-- dbt_analyze dry run")) + 1]
    assert "`region` in ('it\\'s a/b; --%41=') and `day` in (40) and `d` in (date'2024-01-02')" in insert
    fetched = spark._jvm.org.apache.spark.metrics.source.HiveCatalogMetrics.METRIC_PARTITIONS_FETCHED()
    before = fetched.getCount()
    spark.sql("explain " + insert.rstrip(";")).collect()
    assert 0 < fetched.getCount() - before < 40

    spark.sql(f"insert into {table} select id, null, 41, null from range(3)")
    spark.sql(f"insert into {table} select id, 'it''s a/b; --%41=', 3, date'2024-01-01' from range(2)")
    result = analyze(dbt, relation=table, columns="all")
    assert result.success, result.error
    assert "scanned in 3 partition(s), 39 skipped" in result.log
    assert table_stats(spark, table)[""]["row_count"] == 412
    assert rows(spark, f"select sum(row_count) as n from analytics_stats.table_statistics where table_name = 'pushdown_days'"
                       " and partition_spec <> ''")[0]["n"] == 412


def test_a_run_reads_its_own_table_bucket_of_the_statistics_only(spark, dbt):
    """The statistics tables are bucketed by table_name, so a run opens its own table's bucket,
    never the history of every other table. Proof: a file that no reader can parse, planted as
    every other bucket of every statistics table, which a whole incremental run (plan, scan,
    merge and the printed report) then never touches."""
    table = "analytics.bucketed"
    spark.sql(f"drop table if exists {table}")
    spark.sql(f"create table {table} (v bigint, p int) using parquet partitioned by (p)")
    spark.sql(f"insert into {table} select id, id % 3 from range(300)")
    assert analyze(dbt, relation=table, columns="all").success
    bucket = rows(spark, "select pmod(hash('bucketed'), 8) as b")[0]["b"]
    storage = ["analyze_run_events", "statistics_history", "staleness_checks", "column_statistics_estimated_history"]
    warehouse = spark.conf.get("spark.sql.warehouse.dir").removeprefix("file:")
    planted = []
    try:
        for name in storage:
            for other in set(range(8)) - {bucket}:
                planted.append(f"{warehouse}/analytics_stats.db/{name}/part-00000-unreadable_{other:05d}.c000.snappy.parquet")
                with open(planted[-1], "wb") as f:
                    f.write(b"not a parquet file")
            spark.sql(f"refresh table analytics_stats.{name}")
        with pytest.raises(Exception, match="(?i)parquet"):  # a read of every bucket meets them
            spark.table("analytics_stats.statistics_history").count()

        spark.sql(f"insert into {table} select id, 3 from range(100)")
        result = analyze(dbt, relation=table, columns="all")
        assert result.success, result.error
        assert "scanned in 1 partition(s), 3 skipped" in result.log
        assert "table: rows 400" in result.log
    finally:
        for path in planted:
            os.remove(path)
        for name in storage:
            spark.sql(f"refresh table analytics_stats.{name}")
    assert table_stats(spark, table)[""]["row_count"] == 400
    assert abs(column_stats(spark, table)["v"]["distinct_count"] - 300) <= 6


def test_files_another_application_wrote_are_scanned_not_a_file_list_spark_kept(spark, dbt):
    """A long-lived session (a Thrift server's, or this one) keeps a table's file lists: after
    another application adds a file, Spark's own reads still miss it. A scan through that list would
    store the old statistics under the new files' fingerprint, and no later run would look again."""
    table = "analytics.written_elsewhere"
    spark.sql(f"drop table if exists {table}")
    spark.sql(f"create table {table} (v int, p int) using parquet partitioned by (p)")
    spark.sql(f"insert into {table} select cast(id as int), cast(id % 2 as int) from range(100)")
    assert analyze(dbt, relation=table, columns="all").success
    count = f"select count(*) as n from {table}"
    assert rows(spark, count) == [{"n": 100}]
    partition = os.path.join(table_location(spark, table).removeprefix("file:"), "p=1")
    written = sorted(name for name in os.listdir(partition) if name.endswith(".parquet"))[0]
    copied = os.path.join(partition, "part-99999-from-another-application.snappy.parquet")
    shutil.copy(os.path.join(partition, written), copied)
    added = spark.read.parquet(copied).count()
    assert added > 0 and rows(spark, count) == [{"n": 100}], "the session's file list misses the new file"

    result = analyze(dbt, relation=table, columns="all")
    assert result.success and "1 of 2 partition(s)" in result.log, result.error
    stats = table_stats(spark, table)
    assert (stats["p=1"]["row_count"], stats[""]["row_count"]) == (50 + added, 100 + added)
    assert rows(spark, count) == [{"n": 100 + added}]
    again = analyze(dbt, relation=table, columns="all")
    assert again.success and "unchanged since its last analysis" in again.log


def test_a_warm_run_compiles_no_code(spark, dbt):
    """Spark keeps the classes it compiled for a query's generated code and reuses them for the
    same code, but writes bigint and timestamp literals into that code: a run's time, sizes and
    counts as literals would make every run compile its statements anew. Once a run of the same
    shape has run (the same partitions, the same number of runs behind the current states), the
    next one compiles nothing."""
    table = "analytics.warm_runs"
    spark.sql(f"drop table if exists {table}")
    spark.sql(f"create table {table} (id bigint, name string, at timestamp, day int) using parquet partitioned by (day)")
    spark.sql(f"insert into {table} select id, concat('n', id % 7), timestamp_seconds(id), cast(id % 3 as int) from range(300)")
    compilations = spark.sparkContext._jvm.org.apache.spark.metrics.source.CodegenMetrics.METRIC_COMPILATION_TIME()
    counts = []
    for _ in range(4):  # a full run, then runs after partition day=1 is rewritten
        before = compilations.getCount()
        result = analyze(dbt, relation=table, columns="all")
        assert result.success, result.error
        counts.append(compilations.getCount() - before)
        spark.sql(f"insert overwrite {table} partition (day = 1) select id, 'x', timestamp_seconds(id) from range({100 + len(counts)})")
    assert "1 of 3 partition(s)" in result.log
    # Either warm run: the suite's shared session keeps 1,000 classes in a cache whose size-bound
    # eviction is approximate, and after some 400 tests a warm run now and then recompiles a few
    # evicted ones (seen: [22, 6, 0, 4] and [1, 4, 0, 1]).
    assert min(counts[2:]) == 0, counts
