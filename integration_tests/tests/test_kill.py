"""A collection killed with SIGKILL as its statistics write starts, and in the middle of that
write, leaves every current statistic as it was; the killed runs show as unfinished; the next run
completes normally. The same for compact_statistics, killed halfway: the next one finishes it.

dbt runs in separate processes here (the kill must hit a whole dbt process), on a metastore of
their own: Derby admits one process at a time, and the other tests' process holds theirs. A
process's start (a JVM, its first statements) is most of its time, so the tests start few."""

import re
import signal

import pytest
from conftest import PROJECT, dbt_steps, without_runs, printed_statistics as printed

KILL_HOME = PROJECT.parent / ".spark" / "kill"


def steps(*steps: dict, **options) -> tuple[int, str]:
    return dbt_steps(KILL_HOME, {"DBT_ANALYZE_HOME": str(KILL_HOME)}, *steps, **options)


CURRENT = {"current": {"schema": "analytics", "table": "killed"}}
ANALYZE = {"analyze_table": {"relation": "analytics.killed", "columns": "all"}}


def insert(rows: int, partition: int) -> dict:
    return {"sql": f"insert into analytics.killed select id, 'new', 0.5, {partition} from range({rows})"}


@pytest.fixture(scope="module")
def analyzed():
    import shutil

    shutil.rmtree(KILL_HOME, ignore_errors=True)
    KILL_HOME.mkdir(parents=True)
    create = ["create database if not exists analytics",
              "create table analytics.killed using parquet partitioned by (p) as "
              "select id, cast(id % 1000 as string) as s, rand(7) as d, cast(id % 3 as int) as p from range(3000000)"]
    code, output = steps({"sql": create}, ANALYZE, CURRENT)
    assert code == 0, output
    return printed(output)[0]


# A run logs "scanning" and "merging" and then sends its one write; the write of a 1M-row
# partition takes several seconds, so a kill 2 s after the line lands inside it.
KILL_POINTS = [("dbt_analyze: merging", 0.0), ("dbt_analyze: merging", 2.0)]


def test_killed_runs_change_nothing_current_and_the_next_run_completes(analyzed):
    for kill_on, kill_after in KILL_POINTS:
        # new rows, so that each run has a partition to scan
        code, output = steps(insert(1000, 1), ANALYZE, kill_on=kill_on, kill_after=kill_after)
        assert code == -signal.SIGKILL, output
        assert "analyzed:" not in output  # killed before the run's end

    code, output = steps(CURRENT, ANALYZE, CURRENT)
    assert code == 0, output
    before, after = printed(output)
    # no killed run left a statistic behind: the views read the rows of runs that succeeded
    assert without_runs(before) == without_runs(analyzed), f"after the runs killed at {KILL_POINTS}"
    unfinished = [r for r in after["analyze_runs"] if r["status"] == "running"]
    assert len(unfinished) == len(KILL_POINTS)  # the killed runs, visible as never finished
    assert all(r["finished_at"] == "None" for r in unfinished)
    table = {r["partition_spec"]: r for r in after["table_statistics"]}
    assert int(table[""]["row_count"]) == 3_000_000 + 1000 * len(KILL_POINTS)  # each killed run's new rows are counted now


def compaction_lines(output: str) -> dict[str, tuple[int, int]]:
    """{table: (files before, files after)} from compact_statistics' log lines."""
    found = re.findall(r"compacted analytics_stats\.(\w+): \d+ rows, (\d+) file\(s\) -> (\d+)", output)
    return {name: (int(before), int(after)) for name, before, after in found}


def test_compaction_waits_for_runs_keeps_every_row_and_a_killed_one_is_finished_by_the_next(analyzed):
    no_wait = ("--vars", "{dbt_analyze_compaction_wait_seconds: 1}")
    # the runs killed above started minutes ago and never finished: compaction does not start
    code, output = steps(CURRENT, {"compact_statistics": {}}, options=no_wait)
    assert code != 0 and "not compacting: run(s) started in the last 60 minutes have not finished" in output, output
    assert output.count("(analytics.killed, started ") == len(KILL_POINTS)
    before = printed(output)[0]

    # told they are dead, it starts; killed after its second table, it leaves the tables blocked
    code, output = steps({"compact_statistics": {"running_minutes": 0}}, options=no_wait, kill_on="compacted analytics_stats.statistics_history")
    assert code == -signal.SIGKILL, output
    code, output = steps(ANALYZE)
    assert code != 0 and "are being compacted (compact_statistics started " in output, output

    # the next one finishes it, and runs go on as before in the same process
    code, output = steps({"compact_statistics": {"running_minutes": 0}}, CURRENT, insert(10, 2), ANALYZE, options=no_wait)
    assert code == 0, output
    files = compaction_lines(output)
    assert set(files) >= {"statistics_history", "analyze_run_events"}
    assert files["analyze_run_events"][0] >= 2 and files["analyze_run_events"][1] == 1  # one file per event before
    assert files["statistics_history"][1] == 1
    assert all(after <= max(before, 1) for before, after in files.values())
    assert printed(output)[0] == before  # every current statistic and every run, row for row
    # the states are there after compaction: only the new rows' partition is scanned
    assert "scanned in 1 partition(s), 2 skipped" in output
