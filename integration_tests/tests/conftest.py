"""Real dbt commands on a real embedded Spark (dbt-spark `method: session`).

dbt runs in this process through dbtRunner, so every command reuses one SparkSession (and one
Derby metastore) instead of starting a JVM each time; the tests read and check the data through
the same session. Each pytest worker has its own session, metastore, warehouse and dbt target
under .spark/tests/<worker> of the repository, and runs whole modules (`make test`: three workers).
Tests that need dbt in processes of their own (a kill, the Thrift server) use metastores of their
own beside those.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

PROJECT = Path(__file__).resolve().parents[1]
HOME = PROJECT.parent / ".spark" / "tests" / os.environ.get("PYTEST_XDIST_WORKER", "main")
TARGET = HOME / "target"


def own_paths(home: Path) -> dict:
    """dbt's target and log directories under `home`: processes beside this one's dbt do not
    share its partial-parse state, manifest or log."""
    return {"DBT_TARGET_PATH": str(home / "target"), "DBT_LOG_PATH": str(home / "logs")}


os.environ["DBT_ANALYZE_HOME"] = str(HOME)
os.environ.update(own_paths(HOME))  # dbt's partial-parse state, manifest and log, per worker
os.environ.setdefault("DBT_ANALYZE_TEST_SCHEMA", "analytics")
os.environ["DBT_SEND_ANONYMOUS_USAGE_STATS"] = "false"  # no network here, and no noise in the logs
QUICK_JIT = "-XX:TieredStopAtLevel=1 -XX:ReservedCodeCacheSize=512m"


def pytest_configure(config):
    """Every JVM of the suite (the workers' Spark, dbt processes, the Thrift server) runs small
    data through many different plans: much of its CPU went to the JIT's optimizing compiler, so
    the quick one compiles alone (docs/decisions/test-suite-jvm.md). Its code is never
    replaced, so it needs a tiered JVM's code cache (its own 48 MB fills: "Out of space in
    CodeCache"). Set here, not on import: the benchmarks import this module and time warm
    sessions, where the optimizing compiler pays for itself."""
    if QUICK_JIT not in os.environ.get("JAVA_TOOL_OPTIONS", ""):  # beside a developer's own options
        os.environ["JAVA_TOOL_OPTIONS"] = f"{os.environ.get('JAVA_TOOL_OPTIONS', '')} {QUICK_JIT}".strip()


class DbtResult:
    def __init__(self, result, messages):
        self.success = result.success
        self.exception = result.exception
        self.messages = messages

    @property
    def log(self) -> str:
        return "\n".join(self.messages)

    @property
    def error(self) -> str:
        """The exception and the error lines of the log (what a person reads first)."""
        errors = [m for m in self.messages if m.startswith(("Encountered an error", "Failure in", "Compilation Error", "Runtime Error",
                                                               "Database Error", "  Compilation Error", "  Runtime Error", "  Database Error"))
                  or "dbt_analyze:" in m[:40] or "Error in model" in m or "Traceback" in m]
        return str(self.exception or "") + "\n" + "\n".join(errors[-10:])


def run_dbt(*args: str) -> DbtResult:
    from dbt.cli.main import dbtRunner

    messages: list[str] = []

    def capture(event):
        try:
            messages.append(event.info.msg if hasattr(event.info, "msg") else str(event.data))
        except Exception:  # noqa: BLE001 - an event we cannot render is not a test failure
            pass

    runner = dbtRunner(callbacks=[capture])
    result = runner.invoke([*args, "--project-dir", str(PROJECT), "--profiles-dir", str(PROJECT)])
    return DbtResult(result, messages)


def new_spark_session(home: Path, **conf: str):
    """The embedded Spark with profiles.yml's settings, so dbt's getOrCreate() finds this session."""
    from pyspark.sql import SparkSession

    builder = (
        SparkSession.builder.master("local[2]")
        .config("spark.ui.enabled", "false")
        .config("spark.sql.shuffle.partitions", "4")
        .config("spark.sql.session.timeZone", "UTC")
        .config("spark.sql.codegen.cache.maxEntries", "1000")
        .config("spark.sql.warehouse.dir", f"{home}/spark-warehouse")
        .config("spark.hadoop.javax.jdo.option.ConnectionURL", f"jdbc:derby:;databaseName={home}/metastore_db;create=true")
        .config("spark.driver.extraJavaOptions", f"-Dderby.system.home={home} -Duser.timezone=UTC")
    )
    for key, value in conf.items():
        builder = builder.config(key, value)
    session = builder.enableHiveSupport().getOrCreate()
    session.sparkContext.setLogLevel("ERROR")
    return session


def ensure_deps() -> None:
    """`dbt deps` once for all processes of a test run: the suite runs in several at once (xdist), and
    a `dbt deps` re-links the package under another process's feet."""
    import fcntl

    HOME.parent.mkdir(parents=True, exist_ok=True)
    with open(HOME.parent / "deps.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not (PROJECT / "dbt_packages" / "dbt_analyze" / "dbt_project.yml").exists():
            result = run_dbt("deps")
            assert result.success, result.error


# Modules that must share a worker: test_project adds a broken model to the project for a moment,
# which a whole-project build running beside it would pick up.
SHARED_GROUPS = {"test_project.py": "project", "test_project_docs.py": "project"}
# The longest modules, handed out first so that none of them starts last.
LONGEST_FIRST = ["test_thrift.py", "test_kill.py", "test_background.py", "test_project.py", "test_project_docs.py",
                 "test_first_command.py", "test_transfer.py",
                 "test_faults.py", "test_incremental.py", "test_merge_property.py"]


@pytest.hookimpl(tryfirst=True)  # before xdist's hook reads the groups
def pytest_collection_modifyitems(items):
    """A group per module for `pytest -n 3 --dist loadgroup`: a module's fixtures are built once, in
    the worker that runs all of its tests. The longest groups come first (`--no-loadscope-reorder`:
    xdist would otherwise hand out the groups with the most tests first)."""
    items.sort(key=lambda item: LONGEST_FIRST.index(item.path.name) if item.path.name in LONGEST_FIRST else len(LONGEST_FIRST))
    for item in items:
        item.add_marker(pytest.mark.xdist_group(SHARED_GROUPS.get(item.path.name, item.path.stem)))


@pytest.fixture(scope="session")
def spark():
    shutil.rmtree(HOME, ignore_errors=True)
    HOME.mkdir(parents=True)
    session = new_spark_session(HOME)
    session.sql("create database if not exists analytics")
    ensure_deps()
    yield session


@pytest.fixture(scope="session")
def dbt(spark):
    return run_dbt


def dbt_process(home: Path, env: dict, *args: str, kill_on: str | None = None, kill_after: float = 0.0,
                pause_on: str | None = None, while_paused=None, cwd: Path | None = None,
                command: str = "dbt") -> tuple[int, str]:
    """dbt in a process of its own (for a kill, or another metastore or target), its target and
    logs under `home`; with kill_on, SIGKILLs it and its JVM kill_after seconds after a line of
    its output contains that text. With pause_on, calls while_paused() once a line contains that
    text and reads on after it returns: a `pause` step (run_steps) logs its text and then more
    than a pipe holds, so the process waits, blocked on its output, until then. `cwd`: where it
    runs (Spark's defaults would write there); `command`: dbt, or dbt-analyze."""
    import signal
    import subprocess
    import sys
    import time

    ensure_deps()
    command = [str(Path(sys.executable).parent / command), *args, "--project-dir", str(PROJECT), "--profiles-dir", str(PROJECT)]
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, start_new_session=True, cwd=cwd,
                               env={**os.environ, "DBT_SEND_ANONYMOUS_USAGE_STATS": "false", **own_paths(home), **env})
    output = []
    for line in process.stdout:
        output.append(line)
        if kill_on and kill_on in line:
            time.sleep(kill_after)
            os.killpg(process.pid, signal.SIGKILL)
            break
        if pause_on and pause_on in line:
            try:
                while_paused()
            except BaseException:
                os.killpg(process.pid, signal.SIGKILL)  # else it waits on its output for good
                raise
            pause_on = None
    process.wait(timeout=600)
    return process.returncode, "".join(output)


def dbt_steps(home: Path, env: dict, *steps: dict, options: tuple[str, ...] = (), **kill) -> tuple[int, str]:
    """Steps (see the run_steps macro: sql, current statistics, the package's operations) in one
    dbt process of its own: a JVM's start is most of such a process's time."""
    import json

    return dbt_process(home, env, "run-operation", "run_steps", "--args", json.dumps({"steps": list(steps)}), *options, **kill)


def printed_statistics(output: str) -> list[dict]:
    """Each print of current statistics (the `current` step) in a process's output, in order."""
    import json

    return [json.loads(line.split("CURRENT:", 1)[1]) for line in output.splitlines() if "CURRENT:" in line]


def without_runs(current: dict) -> dict:
    """Printed statistics without the runs (which every run adds to)."""
    return {k: v for k, v in current.items() if k != "analyze_runs"}


def analyze(dbt, **args) -> DbtResult:
    import json

    return dbt("run-operation", "analyze_table", "--args", json.dumps(args))


def statements_sent(result: DbtResult, text: str) -> list[str]:
    """The statements of a dbt command that contain `text`, as logged: dbt logs each one it sends
    ("On <connection>: ..."), the library each one it runs in a session of its own."""
    return [m for m in result.messages if text in m and (m.startswith("On ") or "dbt_analyze: running" in m[:60])]


def parse_statements(dbt, texts: list[str]) -> list[dict]:
    """The package's ANALYZE parser on each text, in one dbt call: a request or {'error': ...} each."""
    import json

    result = dbt("run-operation", "parse_statements", "--args", json.dumps({"statements": texts}))
    assert result.success, result.error  # an internal error would fail the whole call
    line = next(m for m in result.messages if m.startswith("PARSED:"))
    return json.loads(line[len("PARSED:"):])


def rows(spark, sql: str) -> list[dict]:
    return [r.asDict() for r in spark.sql(sql).collect()]


def column_stats(spark, table: str, partition_spec: str = "") -> dict[str, dict]:
    schema, name = table.split(".")
    found = rows(spark, f"""select * from analytics_stats.column_statistics
                           where table_schema = '{schema}' and table_name = '{name}' and partition_spec = '{partition_spec}'""")
    return {r["column_name"]: r for r in found}


def table_location(spark, table: str) -> str:
    """The table's location as Spark's catalog gives it (file:/...)."""
    return next(r["data_type"] for r in rows(spark, f"describe table extended {table}") if r["col_name"] == "Location")


def spark_size_bytes(spark, table: str, partition: str = "") -> int:
    """The size Spark's own ANALYZE stored for a table, or for one partition (`p = 'v'`); 0 if none."""
    described = rows(spark, f"describe formatted {table}" + (f" partition ({partition})" if partition else ""))
    key = "Partition Statistics" if partition else "Statistics"
    return int(next((r["data_type"] for r in described if r["col_name"] == key), "0 bytes").split(" ")[0])


def table_stats(spark, table: str) -> dict[str, dict]:
    schema, name = table.split(".")
    found = rows(spark, f"select * from analytics_stats.table_statistics where table_schema = '{schema}' and table_name = '{name}'")
    return {r["partition_spec"]: r for r in found}
