"""Post-hooks' statistics runs beside the build (macros/_background.sql): on dbt-spark's session
the hook hands its run to background workers and returns; the invocation waits for them at its
end and fails, naming the model, when one failed; wait=true keeps the run in the hook; a build
killed while runs are in flight leaves each table's statistics old or new, never mixed."""

from __future__ import annotations

import json

import pytest

from conftest import PROJECT, dbt_process, printed_statistics, rows, table_stats, without_runs

BESIDE = "dbt_analyze: analytics.customers: statistics are collected beside the build"


def test_a_post_hook_runs_beside_the_build_and_the_build_waits_for_it(spark, dbt):
    assert dbt("seed", "--select", "orders_seed").success
    result = dbt("run", "--select", "customers")
    assert result.success, result.error
    assert BESIDE in result.log
    # the run finished within the invocation: its statistics are there when dbt returns
    analyzed = next(i for i, m in enumerate(result.messages) if "dbt_analyze: analytics.customers analyzed:" in m)
    built = next(i for i, m in enumerate(result.messages) if "OK created sql table model analytics.customers" in m)
    assert built < analyzed
    customers = rows(spark, "select count(*) as n from analytics.customers")[0]["n"]
    assert table_stats(spark, "analytics.customers")[""]["row_count"] == customers


def test_wait_true_runs_in_the_hook_as_before(spark, dbt):
    for variables in ({"customers_analyze": {"wait": True}}, {"dbt_analyze_wait": True}):
        result = dbt("run", "--select", "customers", "--vars", json.dumps(variables))
        assert result.success, result.error
        assert BESIDE not in result.log
        analyzed = next(i for i, m in enumerate(result.messages) if "dbt_analyze: analytics.customers analyzed:" in m)
        built = next(i for i, m in enumerate(result.messages) if "OK created sql table model analytics.customers" in m)
        assert analyzed < built  # the hook is part of the model's step


def test_a_failing_background_run_fails_the_invocation_naming_the_model(spark, dbt):
    before = table_stats(spark, "analytics.customers")[""]
    result = dbt("run", "--select", "customers", "--vars", json.dumps({"customers_analyze": {"columns": ["no_such_column"]}}))
    assert not result.success
    assert "OK created sql table model analytics.customers" in result.log  # the model itself was built
    assert ("statistics run(s) failed beside the build (earlier statistics of their tables are intact): "
            "model.dbt_analyze_integration_tests.customers: dbt_analyze: unknown column 'no_such_column'") in result.log
    assert "dbt_analyze.on-run-end.0 failed" in result.log or "USER_RAISED_EXCEPTION" in result.log
    assert table_stats(spark, "analytics.customers")[""]["run_id"] == before["run_id"]
    # a request's own checks still fail the model itself, at once
    result = dbt("run", "--select", "customers", "--vars", json.dumps({"customers_analyze": {"sketches": "many"}}))
    assert not result.success
    assert "'sketches' must be full or basic" in result.error and BESIDE not in result.log
    # and the next invocation starts clean
    result = dbt("run", "--select", "customers")
    assert result.success, result.error


def latest_rows(spark, tables: tuple[str, ...]) -> dict[tuple, dict]:
    """The rows of the latest run of each of analytics' tables, without what names the run or its
    time, nor the states (a sketch's bytes)."""
    found = rows(spark, "select * from analytics_stats.statistics_history where table_schema = 'analytics'"
                        f" and table_name in ({', '.join(repr(t) for t in tables)}) and run_id in"
                        " (select max(run_id) from analytics_stats.statistics_history group by table_name)")
    return {(r["table_name"], r["partition_spec"], r["column_name"]):
            {k: v for k, v in r.items() if k not in ("run_id", "collected_at", "partition_runs")
             and not k.startswith("state_")} for r in found}


@pytest.mark.parametrize("sketches", ["full", "basic"])
def test_runs_pending_together_write_their_events_together(spark, dbt, sketches):
    """The workers kept from taking runs until every model's run waits: the runs of the unpartitioned tables then go
    in one batch, their `started` events in one INSERT, their statistics in another and their
    `succeeded` events in a third; each table's statistics are those of this build, and the same
    as a run of it alone gives, with full sketches (the arrays derived) or basic ones. A small
    table's scan (customers: 1.3 KB of Parquet) and a larger one's (checked_orders: 6.7 KB), on
    either side of dbt_analyze_interpreted_scan_bytes, share the statement: each scan with
    generated code or not, as its size says, and the rows of both derived without it."""
    import threading
    import time

    from dbt_analyze import background

    assert dbt("seed", "--select", "orders_seed").success
    runs = background.background_runs(2)
    real_take, real_write, gate, sizes = runs._take_one, runs._write, threading.Event(), []

    def recorded(jobs):
        sizes.append(sorted(job.key for job in jobs))
        real_write(jobs)

    def open_when_all_wait():
        deadline = time.monotonic() + 120
        while len(runs._waiting) < 3 and time.monotonic() < deadline:
            time.sleep(0.05)
        gate.set()
        runs._pool.submit(runs._drain)

    runs._take_one = lambda: real_take() if gate.is_set() else None
    runs._write = recorded
    opener = threading.Thread(target=open_when_all_wait)
    opener.start()
    try:
        result = dbt("run", "--select", "orders", "customers", "checked_orders", "--vars",
                     json.dumps({"statistics_tests": True, "dbt_analyze_interpreted_scan_bytes": 3000,
                                 "dbt_analyze_sketches": sketches}))
    finally:
        gate.set()
        opener.join()
        runs._take_one, runs._write = real_take, real_write
    assert result.success, result.error
    assert any({"analytics.customers", "analytics.checked_orders"} <= set(batch) for batch in sizes), sizes
    together = next(m for m in result.messages if "runs in one statement:" in m)
    assert "analytics.customers" in together and "analytics.checked_orders" in together, together
    interpreted = '"spark.sql.codegen.wholeStage": "false"'
    shared = next(m for m in result.messages if ", its halves with " in m)
    rows_settings, halves = shared.split(", its halves with ", 1)
    halves = json.loads(halves[:halves.index("], observing") + 1])
    assert interpreted in rows_settings, shared[:400]
    assert sorted(h.get("spark.sql.codegen.wholeStage", "") for h in halves) == ["", "false"], halves
    events = rows(spark, "select table_name, event, event_at, statements from analytics_stats.analyze_run_events"
                         " where table_name in ('customers', 'checked_orders') and run_id in"
                         " (select max_by(run_id, event_at) from analytics_stats.analyze_run_events"
                         "  where table_name in ('customers', 'checked_orders') group by table_name)")
    by_event = {}
    for event in events:
        by_event.setdefault(event["event"], {})[event["table_name"]] = event
    assert set(by_event) == {"started", "succeeded"}, events
    for kind in ("started", "succeeded"):
        assert set(by_event[kind]) == {"customers", "checked_orders"}
        # one INSERT: one current_timestamp()
        assert by_event[kind]["customers"]["event_at"] == by_event[kind]["checked_orders"]["event_at"]
    assert all(event["statements"] > 2 for event in by_event["succeeded"].values())
    for table in ("customers", "checked_orders", "orders"):
        built = rows(spark, f"select count(*) as n from analytics.{table}")[0]["n"]
        assert table_stats(spark, f"analytics.{table}")[""]["row_count"] == built
    written_together = latest_rows(spark, ("customers", "checked_orders"))
    arrays = [any(r[name] for r in written_together.values()) for name in ("histogram", "top_values")]
    assert arrays == [sketches == "full"] * 2, arrays
    assert any(r["distinct_count"] for r in written_together.values())
    alone = dbt("run", "--select", "customers", "checked_orders", "--vars",
                json.dumps({"statistics_tests": True, "dbt_analyze_wait": True, "dbt_analyze_interpreted_scan_bytes": 3000,
                            "dbt_analyze_sketches": sketches}))
    assert alone.success, alone.error
    assert latest_rows(spark, ("customers", "checked_orders")) == written_together


def test_a_batch_checks_for_a_compaction_before_its_first_write(spark, dbt):
    """A compaction that starts while prepared runs wait for their batch (their prepares checked for
    the block before it was set) stops the batch before it writes, though its write's scans go on
    beside its `started` events: each run fails naming the compaction, and each table keeps its
    statistics and shows no event or row of its run."""
    import threading
    import time

    from dbt_analyze import background

    tables = ("customers", "checked_orders")
    selected = ("run", "--select", *tables, "--vars", json.dumps({"statistics_tests": True}))
    assert dbt("seed", "--select", "orders_seed").success
    assert dbt(*selected).success
    before = {table: table_stats(spark, f"analytics.{table}")[""]["run_id"] for table in tables}
    runs = background.background_runs(2)
    real_may_write, gate = runs._may_write, threading.Event()

    def block_once_prepared():
        deadline = time.monotonic() + 120
        while len(runs._prepared) < len(tables) and time.monotonic() < deadline:
            time.sleep(0.05)
        spark.sql("alter table analytics_stats.analyze_run_events"
                  " set tblproperties ('dbt_analyze.compacting' = 'by a test')")
        gate.set()
        with runs._lock:
            runs._changed.notify_all()

    runs._may_write = lambda: gate.is_set() and real_may_write()
    blocker = threading.Thread(target=block_once_prepared)
    blocker.start()
    try:
        result = dbt(*selected)
    finally:
        gate.set()
        blocker.join()
        runs._may_write = real_may_write
        spark.sql("alter table analytics_stats.analyze_run_events unset tblproperties if exists ('dbt_analyze.compacting')")
    assert not result.success
    assert "runs in one statement:" in result.log and "each is written alone" not in result.log, result.log[-3000:]
    for table in tables:
        assert f"the statistics run of model.dbt_analyze_integration_tests.{table} failed" in result.log, result.log[-3000:]
        assert table_stats(spark, f"analytics.{table}")[""]["run_id"] == before[table]
        for stored in ("analyze_run_events", "statistics_history"):
            assert not rows(spark, f"select run_id from analytics_stats.{stored}"
                                   f" where table_name = '{table}' and run_id > '{before[table]}'"), stored
    assert "are being compacted (compact_statistics started by a test)" in result.log, result.log[-3000:]
    assert dbt(*selected).success


KILL_HOME = PROJECT.parent / ".spark" / "background_kill"


def test_a_build_killed_while_runs_are_in_flight_leaves_each_table_old_or_new():
    """A first day, analyzed; then a full refresh to a fourth day alone, its hooks beside the
    build, killed once the runs are handed over: each table's statistics are those before the
    build or those of its new data (as a run of it gives them after), never a mix of the two."""
    import shutil

    shutil.rmtree(KILL_HOME, ignore_errors=True)
    KILL_HOME.mkdir(parents=True)
    env = {"DBT_ANALYZE_HOME": str(KILL_HOME)}
    models = ("--select", "events", "purchases")

    def current() -> list[dict]:
        tables = [{"current": {"schema": "analytics", "table": name}} for name in ("events", "purchases")]
        code, output = dbt_process(KILL_HOME, env, "run-operation", "run_steps", "--args", json.dumps({"steps": tables}))
        assert code == 0, output[-3000:]
        return [without_runs(printed) for printed in printed_statistics(output)]

    code, output = dbt_process(KILL_HOME, env, "run", *models)
    assert code == 0, output[-3000:]
    old = current()
    dbt_process(KILL_HOME, env, "run", *models, "--full-refresh", "--vars", json.dumps({"events_day": 4}),
                kill_on="dbt_analyze: analytics.purchases: statistics are collected beside the build", kill_after=1.0)
    after_kill = current()
    code, output = dbt_process(KILL_HOME, env, "run", *models, "--full-refresh", "--vars", json.dumps({"events_day": 4}))
    assert code == 0, output[-3000:]
    new = current()
    assert new[0] != old[0]  # events: day 4 alone, after day 1
    for table in range(2):
        assert after_kill[table] in (old[table], new[table])
