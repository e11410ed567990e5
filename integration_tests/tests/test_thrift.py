"""The SQL path over a real Spark Thrift Server (dbt-spark `method: thrift`), started from the
jars that ship with pyspark on loopback, with a metastore of its own. Unlike dbt-spark's session
mode, the server runs with Spark 4's defaults (ANSI mode on)."""

import json
import os
import shutil
import socket
import subprocess
import time
from pathlib import Path

import pytest
from conftest import PROJECT, dbt_process, dbt_steps, own_paths, printed_statistics
from test_edge_cases import edge_values_sql

THRIFT_HOME = PROJECT.parent / ".spark" / "thrift"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def thrift_port():
    """A Thrift server from pyspark's jars. Its port is free when chosen, but another process (a
    Spark of another worker) may take it before the server binds it: the server then exits, and
    starts again on another port. It listens once its log says it started, not when something
    answers on the port."""
    import pyspark

    shutil.rmtree(THRIFT_HOME, ignore_errors=True)
    THRIFT_HOME.mkdir(parents=True)
    spark_home = Path(pyspark.__file__).parent
    for attempt in range(3):
        port = free_port()
        command = [
            str(spark_home / "bin" / "spark-submit"), "--master", "local[2]",
            "--class", "org.apache.spark.sql.hive.thriftserver.HiveThriftServer2",
            "--conf", "spark.ui.enabled=false", "--conf", "spark.sql.shuffle.partitions=4",
            "--conf", f"spark.sql.warehouse.dir={THRIFT_HOME}/spark-warehouse",
            "--conf", f"spark.hadoop.javax.jdo.option.ConnectionURL=jdbc:derby:;databaseName={THRIFT_HOME}/metastore_db;create=true",
            "--conf", f"spark.driver.extraJavaOptions=-Dderby.system.home={THRIFT_HOME}",
            "--hiveconf", f"hive.server2.thrift.port={port}", "--hiveconf", "hive.server2.thrift.bind.host=127.0.0.1",
            "spark-internal",
        ]
        log_path = THRIFT_HOME / f"server-{attempt}.log"
        with open(log_path, "w") as log:
            server = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT,
                                      env={**os.environ, "SPARK_HOME": str(spark_home)}, start_new_session=True)
        deadline = time.time() + 120
        while time.time() < deadline and server.poll() is None and not any(
                line in log_path.read_text() for line in ("HiveThriftServer2 started", "Address already in use")):
            time.sleep(1)
        text = log_path.read_text()
        if server.poll() is None and "HiveThriftServer2 started" in text:
            break
        if server.poll() is None:
            os.killpg(server.pid, 15)
            server.wait(timeout=60)
        if "Address already in use" not in text:
            pytest.fail("the Thrift server did not start: " + text[-3000:])
    else:
        pytest.fail("the Thrift server found no free port in 3 attempts")
    yield port
    os.killpg(server.pid, 15)
    server.wait(timeout=60)


def dbt(port, *args):
    return dbt_process(THRIFT_HOME, {"DBT_ANALYZE_THRIFT_PORT": str(port)}, *args, "--target", "thrift")


def steps(port, *steps: dict, options: tuple[str, ...] = (), **pause) -> tuple[int, str]:
    return dbt_steps(THRIFT_HOME, {"DBT_ANALYZE_THRIFT_PORT": str(port)}, *steps, options=("--target", "thrift", *options), **pause)


def test_analyze_over_thrift(thrift_port):
    create = ["create database if not exists analytics",
              "create table analytics.over_thrift (v bigint, s string, b boolean, d double, p int) using parquet partitioned by (p)",
              "insert into analytics.over_thrift values (1, 'a', true, 1.5, 1), (2, null, false, null, 1), (3, 'ccc', null, cast('NaN' as double), 2)",
              "create database if not exists thrift_shelf", "create table thrift_shelf.pens using parquet as select 1 as v",
              "create view thrift_shelf.pens_view as select * from thrift_shelf.pens"]
    code, output = steps(thrift_port, {"sql": create},
                         {"analyze_table": {"statement": "ANALYZE TABLE analytics.over_thrift COMPUTE STATISTICS FOR ALL COLUMNS"}},
                         {"current": {"schema": "analytics", "table": "over_thrift"}},
                         {"analyze_table": {"relation": "analytics.over_thrift", "columns": "all"}},
                         {"analyze_table": {"statement": "ANALYZE TABLES IN thrift_shelf COMPUTE STATISTICS FOR ALL COLUMNS"}},
                         {"analyze_table": {"relation": "thrift_shelf.pens", "columns": "all"}})
    assert code == 0, output[-5000:]
    assert "ANALYZE TABLES IN thrift_shelf: 1 table(s), 1 view(s) skipped (no data of their own): pens_view" in output
    assert "thrift_shelf.pens: succeeded, 1 partition(s) scanned, 0 skipped, 1 rows" in output
    assert "scanning analytics.over_thrift: 2 of 2 partition(s), 4 column(s)" in output
    assert "table: rows 3" in output
    columns = {r["column_name"]: r for r in printed_statistics(output)[0]["column_statistics"] if r["partition_spec"] == ""}
    assert columns["s"]["null_count"] == "1" and columns["s"]["max_value"] == "ccc"
    assert columns["d"]["max_value"] == "NaN" and columns["b"]["true_count"] == "1"
    assert output.index("table: rows 3") < output.index("unchanged since its last analysis")  # the second run skips
    # and so does an unpartitioned table's
    assert "thrift_shelf.pens unchanged since its last analysis (1 partition(s) skipped)" in output
    # the server keeps Spark's default of 100 compiled classes: said once per dbt process, not per run
    assert output.count("dbt_analyze: hint: this Spark keeps 100 compiled query classes (spark.sql.codegen.cache.maxEntries)") == 1


def test_publish_over_thrift_publishes_the_size_and_says_what_it_left_out(thrift_port):
    code, output = dbt(thrift_port, "run-operation", "analyze_table", "--args",
                       "{relation: analytics.over_thrift, columns: all, publish: true}")
    assert code == 0, output[-3000:]
    assert "only the size was published to the Spark catalog (not a session connection)" in output


def test_a_table_whose_directory_is_gone_is_analyzed_as_empty_over_thrift(thrift_port, tmp_path):
    """The server's error comes back as text; the listing finds the missing path in it, as in a session."""
    location = tmp_path / "gone"
    code, output = steps(thrift_port, {"sql": ["create database if not exists analytics",
                                               f"create table analytics.gone (v int) using parquet location '{location}'",
                                               "insert into analytics.gone values (1), (2)"]},
                         {"analyze_table": {"relation": "analytics.gone", "columns": "all"}})
    assert code == 0, output[-3000:]
    shutil.rmtree(location)
    code, output = steps(thrift_port, {"analyze_table": {"relation": "analytics.gone", "columns": "all"}},
                         {"current": {"schema": "analytics", "table": "gone"}})
    assert code == 0, output[-3000:]
    assert f"analytics.gone: its location file:{location} does not exist; listed as holding no files" in output
    table = {t["partition_spec"]: t for t in printed_statistics(output)[0]["table_statistics"]}
    assert (table[""]["row_count"], table[""]["size_bytes"], table[""]["file_count"]) == ("0", "0", "0")


def test_extreme_values_and_typed_partition_values_with_ansi_mode_on(thrift_port):
    """dbt-spark's session turns ANSI mode off; a Thrift server keeps Spark 4's default (on), where a
    cast out of range fails the statement instead of giving NULL."""
    code, output = steps(thrift_port, {"sql": ["create database if not exists analytics", *edge_values_sql("analytics.thrift_edges"),
                                               "create table analytics.thrift_typed (v int, n int) using parquet partitioned by (n)",
                                               "insert into analytics.thrift_typed values (1, 1), (2, 2)"]},
                         {"analyze_table": {"relation": "analytics.thrift_edges", "columns": "all"}},
                         {"current": {"schema": "analytics", "table": "thrift_edges"}},
                         {"analyze_table": {"statement": "ANALYZE TABLE analytics.thrift_typed PARTITION (n=01) COMPUTE STATISTICS FOR ALL COLUMNS"}})
    assert code == 0, output[-5000:]
    quantiles = {(q["column_name"], q["quantile"]): q["value"] for q in printed_statistics(output)[0]["column_quantiles"]}
    assert quantiles[("c_decimal_int", "0.99")] == "9" * 38 and quantiles[("c_decimal_int", "0.01")] == "-" + "9" * 38
    assert "scanning analytics.thrift_typed: 1 of 2 partition(s)" in output


def current_of(port, table: str) -> dict:
    code, output = steps(port, {"current": {"schema": "analytics", "table": table}})
    assert code == 0, output[-3000:]
    return printed_statistics(output)[0]


def at_once(port, *requests: dict, options: tuple[str, ...] = ()) -> list[tuple[int, str]]:
    """analyze_table runs started together, each in a dbt process of its own."""
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(len(requests)) as pool:
        futures = [pool.submit(dbt, port, "run-operation", "analyze_table", "--args", json.dumps(r), *options) for r in requests]
        return [f.result() for f in futures]


def failures(results) -> list[str]:
    """The error part of each failed run's output."""
    found = [output[output.find("Encountered an error"):] for code, output in results if code != 0]
    if found:
        (THRIFT_HOME / "failures.log").write_text("\n\n".join(found))
    return [f[:1500] for f in found]


def assert_consistent(current: dict, rows: int) -> None:
    """The table row is the sum of its partitions' rows, each current row appears once."""
    tables = current["table_statistics"]
    specs = [t["partition_spec"] for t in tables]
    assert len(specs) == len(set(specs))
    table = {t["partition_spec"]: int(t["row_count"]) for t in tables}
    assert table[""] == rows == sum(v for k, v in table.items() if k)
    columns = [(c["partition_spec"], c["column_name"]) for c in current["column_statistics"]]
    assert len(columns) == len(set(columns))
    nulls = {c["partition_spec"]: int(c["null_count"]) for c in current["column_statistics"] if c["column_name"] == "v"}
    assert nulls[""] == sum(v for k, v in nulls.items() if k)


def test_concurrent_runs_lose_nothing(thrift_port):
    setup = ["create table analytics.shared (v bigint, p int) using parquet partitioned by (p)",
             "insert into analytics.shared select if(id % 10 = 0, null, id), cast(id % 4 as int) from range(4000)",
             "create table analytics.other using parquet as select id from range(500)"]
    inserts = ["insert into analytics.shared partition (p = 1) select null from range(100)",
               "insert into analytics.shared partition (p = 2) select 7 from range(50)"]
    code, output = steps(thrift_port, {"sql": setup}, {"analyze_table": {"relation": "analytics.shared", "columns": "all"}}, {"sql": inserts})
    assert code == 0, output[-3000:]

    # different partitions of one table at once: both new states end up in the table's statistics
    results = at_once(thrift_port, {"relation": "analytics.shared", "partition": {"p": 1}, "columns": "all"},
                      {"relation": "analytics.shared", "partition": {"p": 2}, "columns": "all"})
    assert not failures(results), failures(results)
    assert_consistent(current_of(thrift_port, "shared"), 4150)

    # different tables at once
    results = at_once(thrift_port, {"relation": "analytics.shared", "columns": "all", "full": True},
                      {"relation": "analytics.other", "columns": "all"})
    assert not failures(results), failures(results)
    code, output = steps(thrift_port, {"current": {"schema": "analytics", "table": "shared"}}, {"current": {"schema": "analytics", "table": "other"}})
    assert code == 0, output[-3000:]
    shared, other = printed_statistics(output)
    assert_consistent(shared, 4150)
    assert {t["partition_spec"]: t["row_count"] for t in other["table_statistics"]} == {"": "500"}

    # the same table twice at once: one consistent result
    results = at_once(thrift_port, *[{"relation": "analytics.shared", "columns": "all", "full": True}] * 2)
    assert not failures(results), failures(results)
    assert_consistent(current_of(thrift_port, "shared"), 4150)


def test_two_processes_creating_the_statistics_storage_at_once_both_succeed(thrift_port):
    """Spark checks whether a table or view exists, then creates it: a process that another one
    beats to it in between got TABLE_OR_VIEW_ALREADY_EXISTS (3 of 4 such first uses failed). A
    race, so three fresh statistics schemas, each first used by two processes at once."""
    code, output = steps(thrift_port, {"sql": ["create database if not exists analytics",
                                                "create table analytics.first_a using parquet as select id from range(50)",
                                                "create table analytics.first_b using parquet as select id from range(60)"]})
    assert code == 0, output[-3000:]
    for trial in range(3):
        options = ("--vars", json.dumps({"dbt_analyze_schema": f"first_use_{trial}_stats"}))
        results = at_once(thrift_port, {"relation": "analytics.first_a", "columns": "all"}, {"relation": "analytics.first_b", "columns": "all"},
                          options=options)
        assert not failures(results), failures(results)
    code, output = steps(thrift_port, *[{"current": {"schema": "analytics", "table": table}} for table in ("first_a", "first_b")],
                         options=options)
    assert code == 0, output[-3000:]
    assert [c["table_statistics"][0]["row_count"] for c in printed_statistics(output)] == ["50", "60"]


PAUSED = "waiting for the other process"


def analyzed_in_three_partitions(port, table: str):
    """`table` (300 rows, partitions p = 0, 1, 2) analyzed, and what another dbt process does while
    one is paused (steps' pause_on): adds 50 rows of value 1000 to partition 2 and analyzes it."""
    setup = ["create database if not exists analytics", f"create table {table} (v bigint, p int) using parquet partitioned by (p)",
             f"insert into {table} select id, cast(id % 3 as int) from range(300)"]
    code, output = steps(port, {"sql": setup}, {"analyze_table": {"relation": table, "columns": "all"}})
    assert code == 0, output[-3000:]

    def another_process_analyzes_partition_2():
        code, output = steps(port, {"sql": f"insert into {table} partition (p = 2) select 1000 from range(50)"},
                             {"analyze_table": {"relation": table, "partition": {"p": 2}, "columns": "all"}})
        assert code == 0, output[-3000:]

    return another_process_analyzes_partition_2


def test_a_connection_reads_what_other_connections_wrote_since_it_last_read(thrift_port):
    """Each Thrift connection is a Spark session of its own, which keeps the file lists of the
    tables it has read; another connection's writes do not refresh them. A dbt process that read
    the statistics tables, then waited while another one analyzed a partition, merged that
    partition's older state into the table's statistics: its next run must read them anew."""
    table = "analytics.kept_open"
    meanwhile = analyzed_in_three_partitions(thrift_port, table)
    code, output = steps(thrift_port, {"analyze_table": {"relation": table, "partition": {"p": 1}, "columns": "all"}},  # reads them
                         {"pause": PAUSED},
                         {"sql": f"insert into {table} partition (p = 1) select 8 from range(20)"},
                         {"analyze_table": {"relation": table, "partition": {"p": 1}, "columns": "all"}},
                         {"current": {"schema": "analytics", "table": "kept_open"}},
                         pause_on=PAUSED, while_paused=meanwhile)
    assert code == 0, output[-3000:]
    assert output.index("kept_open unchanged since its last analysis") < output.index(PAUSED)
    assert_consistent(printed_statistics(output)[0], 370)


def test_a_run_merges_again_what_another_run_wrote_during_its_scan(thrift_port):
    """Two runs of one table's partitions at once: one reads the states, and the other analyzes
    another partition and succeeds before the first one writes. The first run's check after its
    `succeeded` event finds the other run, which its states read did not see, and merges the table
    again. The run is held before its write: with --debug, dbt logs the write's SQL (more than a
    pipe holds) before it sends it."""
    table = "analytics.merged_again"
    meanwhile = analyzed_in_three_partitions(thrift_port, table)
    code, output = steps(thrift_port, {"sql": f"insert into {table} partition (p = 1) select 8 from range(20)"},
                         {"analyze_table": {"relation": table, "partition": {"p": 1}, "columns": "all"}},
                         {"current": {"schema": "analytics", "table": "merged_again"}},
                         options=("--debug",), pause_on=f"dbt_analyze: merging {table}", while_paused=meanwhile)
    assert code == 0, output[-3000:]
    assert "finished during the merge of" in output and "merging again" in output, output[-3000:]
    assert_consistent(printed_statistics(output)[0], 370)


def test_a_dry_run_plans_from_what_other_connections_wrote_since_it_last_read(thrift_port):
    """A dry run creates no storage, so it refreshes the tables it reads itself: here it finds
    partition 2, changed and analyzed by another process meanwhile, fresh (stale file lists of the
    statistics tables would plan to scan it again)."""
    table = "analytics.dry_later"
    meanwhile = analyzed_in_three_partitions(thrift_port, table)
    dry_run = {"analyze_table": {"relation": table, "partition": {"p": 2}, "columns": "all", "dry_run": True}}
    code, output = steps(thrift_port, dry_run, {"pause": PAUSED}, dry_run, pause_on=PAUSED, while_paused=meanwhile)
    assert code == 0, output[-3000:]
    assert output.count(f"dry run for {table}: scan 0 partition(s), skip 1") == 2, output[-3000:]


def test_reads_of_statistics_written_by_another_connection_refresh_them_first(thrift_port):
    """A connection that read the statistics tables, then waited while another one analyzed the
    table, reads them as they were through plain SQL (Spark keeps its file lists); the read macros
    and refresh_statistics (a model's pre-hook) read them anew."""
    table = "analytics.read_later"
    meanwhile = analyzed_in_three_partitions(thrift_port, table)
    current = {"current": {"schema": "analytics", "table": "read_later"}}
    code, output = steps(thrift_port, current, {"pause": PAUSED},
                         current, {"column_stats": {"schema": "analytics", "table": "read_later", "column": "v"}},
                         {"refresh_statistics": {}}, current,
                         pause_on=PAUSED, while_paused=meanwhile)
    assert code == 0, output[-3000:]
    before, stale, refreshed = [{t["partition_spec"]: t["row_count"] for t in printed["table_statistics"]} for printed in printed_statistics(output)]
    assert before[""] == stale[""] == "300"
    column = json.loads(output.split("COLUMN_STATS:", 1)[1].splitlines()[0])
    assert column["max_value"] == "1000"
    assert refreshed[""] == "350" and refreshed["p=2"] == "150"


def test_the_project_over_thrift(thrift_port):
    """The integration project's SQL paths over the Thrift server: post-hooks on every table model
    (the Python model says clearly that it needs a session), the package's statistics models,
    incremental skipping, estimate_statistics and the docs."""
    import sys

    code, output = dbt(thrift_port, "build", "--vars", "{events_day: 1}")
    assert code == 1, output[-3000:]  # only the three Python models fail
    assert "Completed with 3 errors" in output and "PASS=27" in output, output[-3000:]  # 25 nodes and two on-run-end hooks
    for model in ("order_sizes", "default_format", "pandas_frame"):
        assert f"Python model model.dbt_analyze_integration_tests.{model} needs a Spark session in dbt's process" in output
    assert "this target connects with method 'thrift'" in output
    assert "sql statistics_view model analytics_stats.table_statistics" in output  # the package's statistics models
    orders = current_of(thrift_port, "orders")
    assert {t["partition_spec"]: t["row_count"] for t in orders["table_statistics"]}[""] == "7"
    assert {c["column_name"] for c in orders["column_statistics"]} >= {"order_id", "customer", "amount", "status", "is_paid"}
    assert orders["column_histograms"] and orders["column_top_values"]  # sketches too (Spark 4.3 server)

    code, output = dbt(thrift_port, "run", "--select", "events", "--vars", "{events_day: 2}")
    assert code == 0, output[-3000:]
    assert "scanning analytics.events: 1 of 2 partition(s)" in output

    code, output = dbt(thrift_port, "run-operation", "estimate_statistics", "--args",
                       "{select: [purchases_enriched, purchases_enriched_summary]}")
    assert code == 0, output[-3000:]
    assert "analytics.purchases_enriched_summary: 4 column(s) estimated" in output

    docs = subprocess.run([str(Path(sys.executable).parent / "dbt-analyze"), "docs", "generate", "--target", "thrift",
                           "--project-dir", str(PROJECT), "--profiles-dir", str(PROJECT)],
                          capture_output=True, text=True, timeout=600,
                          env={**os.environ, "DBT_ANALYZE_THRIFT_PORT": str(thrift_port), "DBT_SEND_ANONYMOUS_USAGE_STATS": "false",
                               **own_paths(THRIFT_HOME)})
    assert docs.returncode == 0, (docs.stdout + docs.stderr)[-3000:]
    manifest = json.loads((THRIFT_HOME / "target" / "manifest.json").read_text())  # dbt's DBT_TARGET_PATH, honoured
    assert "**Rows** 7" in manifest["nodes"]["model.dbt_analyze_integration_tests.orders"]["description"]
    summary = manifest["nodes"]["model.dbt_analyze_integration_tests.purchases_enriched_summary"]["description"]
    assert "### Estimated statistics (dbt_analyze)" in summary


def test_concurrent_builds_over_thrift_lose_nothing(thrift_port):
    """Two builds at once, one of them with two dbt threads: over Thrift each dbt thread is a Spark
    session of its own and the post-hooks run in the hook; every model's statistics are there and
    count its rows."""
    from concurrent.futures import ThreadPoolExecutor

    builds = [("run", "--select", "purchases", "events", "--threads", "2", "--vars", "{events_day: 7}"),
              ("run", "--select", "customers", "orders")]
    with ThreadPoolExecutor(len(builds)) as pool:
        results = list(pool.map(lambda args: dbt(thrift_port, *args), builds))
    for code, output in results:
        assert code == 0, output[-3000:]
        assert "collected beside the build" not in output
    tables = ("purchases", "events", "customers", "orders")
    code, output = steps(thrift_port, *({"current": {"schema": "analytics", "table": table}} for table in tables))
    assert code == 0, output[-3000:]
    counted = {}
    for table, current in zip(tables, printed_statistics(output)):
        counted[table] = {t["partition_spec"]: t["row_count"] for t in current["table_statistics"]}[""]
        assert {c["column_name"] for c in current["column_statistics"] if c["partition_spec"] == ""}, table
    assert counted["purchases"] == "20000" and counted["orders"] == "7"
    assert int(counted["events"]) >= 100 and int(counted["customers"]) > 0, counted
