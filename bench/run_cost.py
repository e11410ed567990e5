"""What one run costs against Spark's own ANALYZE, side by side in one warm session.

    make bench-cost            # SCALE=1: the figures of BENCHMARKS.md, "What a run costs"

Each figure times whole runs as a post-hook runs them (every statement: storage check, describe,
listing, states, the one write, events), interleaved round by round with the step it is compared
with, inside one dbt process (bench_interleaved, integration_tests/macros/bench_helpers.sql):
- small: a 1,000-row, 8-column unpartitioned table, full runs against Spark's ANALYZE ... FOR ALL COLUMNS;
- basic: the mixed 2M-row table (SCALE x), sketches basic, against Spark's ANALYZE;
- full: the same with every sketch, against Spark's ANALYZE with histograms;
- incremental: 31 partitions of 100,000 rows; a full run against a run after one new partition;
- many partitions: 2,000 daily partitions; a run after one new day;
- project: `dbt build` of a dozen small table models (bench/cost_project) with no post-hook, with
  Spark's ANALYZE as the post-hook, with analyze() and with analyze(sketches='basic'), builds
  interleaved; what each hook adds is its build's median less the median build without a hook.
Medians of the rounds; the statements each run sent (analyze_runs.statements) beside them. Each
figure but the project's also times Spark's floor under a run in the same rounds: the least
statements any run must send (bench/spark_floor.py), sent through dbt as a run sends its own.
Results: bench/out/run_cost.json and the section of BENCHMARKS.md between its markers.
"""

from __future__ import annotations

import argparse
import json
import re
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "integration_tests" / "tests"))
sys.path.insert(0, str(ROOT / "bench"))

import datasets  # noqa: E402
import spark_floor  # noqa: E402
from datasets import MIXED  # noqa: E402
from conftest import run_dbt  # noqa: E402

SPARK_ANALYZE = "analyze table {} compute statistics for all columns"


def interleaved(steps: list[dict], rounds: int, warmup: int = 1) -> dict:
    """Medians of `rounds` rounds of the steps, after `warmup` rounds that are not counted (the
    session's first runs of a statement shape compile its classes and warm the JIT)."""
    result = run_dbt("run-operation", "bench_interleaved", "--args", json.dumps({"steps": steps, "rounds": warmup + rounds}))
    if not result.success:
        raise RuntimeError(result.error)
    line = next(m for m in result.messages if m.startswith("BENCH: "))
    timings = json.loads(line[len("BENCH: "):])
    return {name: {"seconds": statistics.median(t["ms"][warmup:]) / 1000, "runs": [ms / 1000 for ms in t["ms"][warmup:]],
                   "statements": statistics.median(t["statements"][warmup:])} for name, t in timings.items()}


def new_partition(table: str, select: str, rows: int) -> str:
    """An insert of a partition after the table's last one (the same statement every round)."""
    return f"insert into {table} select {select}, (select max(part) + 1 from {table}) as part from range({rows})"


def statement_profile(relation: str, before: str | None = None, **options) -> dict:
    """Where one warm run of `relation` with `options` (after the statement `before`) spends its
    time: each Spark statement in order, from its
    sql() (parse, analysis, planning; a command also runs) to the end of the collect() or
    localCheckpoint() that runs a query's job, and the rest of the run (Jinja, Python, dbt): the run
    less the union of the statements' intervals (statements run at once overlap). A statement is
    named by its first words, its literals left out."""
    from pyspark.sql import DataFrameWriter, SparkSession
    from pyspark.sql.classic.dataframe import DataFrame

    statements, sql, collect, insert_into = [], SparkSession.sql, DataFrame.collect, DataFrameWriter.insertInto
    checkpoint = DataFrame.localCheckpoint

    def timed_sql(self, text, *args, **kwargs):
        started = time.perf_counter()
        frame = sql(self, text, *args, **kwargs)
        words = re.sub(r"'[^']*'", "'…'", re.sub(r"/\*.*?\*/", " ", text, flags=re.S)).split()
        statements.append({"statement": " ".join(words[:4]), "start": started, "end": time.perf_counter()})
        frame._bench_statement = statements[-1]
        return frame

    def timed_collect(self):
        rows = collect(self)
        if hasattr(self, "_bench_statement"):
            self._bench_statement["end"] = time.perf_counter()
        return rows

    def timed_checkpoint(self, *args, **kwargs):
        """The first half of a write in two (dbt_analyze_insert_observed): its job."""
        frame = checkpoint(self, *args, **kwargs)
        if hasattr(self, "_bench_statement"):
            self._bench_statement["end"] = time.perf_counter()
        return frame

    def timed_insert_into(self, table, *args, **kwargs):
        """The statistics write (dbt_analyze_insert_observed): its query's sql() above, its job here."""
        started = time.perf_counter()
        insert_into(self, table, *args, **kwargs)
        statements.append({"statement": f"insertInto {table}", "start": started, "end": time.perf_counter()})

    if before:
        SparkSession.builder.getOrCreate().sql(before)
    SparkSession.sql, DataFrame.collect, DataFrameWriter.insertInto = timed_sql, timed_collect, timed_insert_into
    DataFrame.localCheckpoint = timed_checkpoint
    try:
        run = interleaved([{"name": "ours", "analyze": ours(relation, **options)}], 1, warmup=0)["ours"]
    finally:
        SparkSession.sql, DataFrame.collect, DataFrameWriter.insertInto = sql, collect, insert_into
        DataFrame.localCheckpoint = checkpoint
    in_spark, reached = 0.0, float("-inf")
    for entry in sorted(statements, key=lambda e: e["start"]):
        in_spark += max(entry["end"] - max(entry["start"], reached), 0)
        reached = max(reached, entry["end"])
    return {"seconds": run["seconds"], "rest": run["seconds"] - in_spark,
            "statements": [{"statement": e["statement"], "seconds": e["end"] - e["start"]} for e in statements]}


def floor(spark, relation: str, sketches: str) -> dict:
    """The step of Spark's floor under a run of `relation` (spark_floor.least_run_statements). Its
    scan leaves the table's file list in the session, which Spark's ANALYZE drops: a round's steps
    put it before that ANALYZE, so that the next round's run finds no list to refresh as before."""
    return {"name": "floor", "sqls": list(spark_floor.least_run_statements(spark, relation, sketches).values())}


def ours(relation: str, **options) -> dict:
    return {"relation": relation, "columns": "all", **options}


PROJECT = ROOT / "bench" / "cost_project"
HOOKS = ("none", "spark", "ours", "basic")


def dbt_in_project(*args: str):
    """A dbt command in bench/cost_project, in this process (so in the benchmark's warm session)."""
    from dbt.cli.main import dbtRunner

    return dbtRunner().invoke([*args, "--project-dir", str(PROJECT), "--profiles-dir", str(PROJECT)])


def build_project(hook: str) -> float:
    """Seconds of one `dbt build` of the dozen-model project with the given post-hook."""
    started = time.perf_counter()
    result = dbt_in_project("build", "--quiet", "--vars", json.dumps({"cost_hook": hook}))
    if not result.success:
        raise RuntimeError(f"dbt build with hook {hook} failed: {result.exception}")
    return time.perf_counter() - started


def measure_project(rounds: int) -> dict:
    if not dbt_in_project("deps").success:
        raise RuntimeError("dbt deps failed in bench/cost_project")
    for hook in HOOKS:  # the first build of each kind creates its tables and compiles its classes
        build_project(hook)
    seconds = {hook: [] for hook in HOOKS}
    for _ in range(rounds):
        for hook in HOOKS:
            seconds[hook].append(build_project(hook))
    baseline = statistics.median(seconds["none"])
    return {hook: {"seconds": statistics.median(runs), "runs": runs, "added": statistics.median(runs) - baseline}
            for hook, runs in seconds.items()}


def measure(spark, scale: float, rounds: int) -> dict:
    report = {}

    def step(name: str) -> None:
        print(f"[{time.strftime('%H:%M:%S')}] {name}", flush=True)

    step("small table")
    small = datasets.create(spark, "cost_small", MIXED, 1000)
    report["small"] = interleaved([{"name": "ours", "analyze": ours(small, full=True)}, floor(spark, small, "full"),
                                   {"name": "spark", "sql": SPARK_ANALYZE.format(small)}], rounds + 2, warmup=2)
    report["small_profile"] = statement_profile(small, full=True)

    step("mixed table, basic and full")
    mixed = datasets.create(spark, "cost_mixed", MIXED, int(2_000_000 * scale))
    report["basic"] = interleaved([{"name": "ours", "analyze": ours(mixed, full=True, sketches="basic")}, floor(spark, mixed, "basic"),
                                   {"name": "spark", "sql": SPARK_ANALYZE.format(mixed)}], rounds)
    spark.conf.set("spark.sql.statistics.histogram.enabled", "true")  # the session dbt shares
    try:
        report["full"] = interleaved([{"name": "ours", "analyze": ours(mixed, full=True)}, floor(spark, mixed, "full"),
                                      {"name": "spark", "sql": SPARK_ANALYZE.format(mixed)}], rounds)
    finally:
        spark.conf.set("spark.sql.statistics.histogram.enabled", "false")

    step("incremental: 31 partitions of 100,000 rows")
    per_partition = int(100_000 * scale)
    parts = datasets.create(spark, "cost_parts", MIXED, per_partition * 31, partitions=31)
    select = ", ".join(f"{expression} as {column}" for column, expression in MIXED.items())
    least = spark_floor.incremental_statements(spark, parts, 30)  # its last partition stands for a new one
    report["incremental"] = interleaved([{"name": "full", "analyze": ours(parts, full=True)},
                                         {"name": "incremental", "before": new_partition(parts, select, per_partition), "analyze": ours(parts)},
                                         {"name": "floor_full", "sqls": least["full"]},
                                         {"name": "floor_incremental", "sqls": least["incremental"]}],
                                        rounds)

    step("2,000 daily partitions")
    days = datasets.create(spark, "cost_days", {"v": "id", "label": "cast(id % 13 as string)"}, 20_000, partitions=2000)
    interleaved([{"name": "first", "analyze": ours(days)}], 1, warmup=0)
    report["many_partitions"] = interleaved([{"name": "new_day", "before": new_partition(days, "id, cast(id % 13 as string)", 10),
                                              "analyze": ours(days)}], rounds)["new_day"]
    report["many_partitions_profile"] = statement_profile(days, before=new_partition(days, "id, cast(id % 13 as string)", 10))
    step("a project of a dozen models")
    report["project"] = measure_project(rounds)
    return report


def markdown(report: dict, options) -> str:
    small, basic, full, inc, project, profile = (report[key] for key in ("small", "basic", "full", "incremental", "project", "small_profile"))
    lines = [
        "<!-- run_cost:start -->",
        f"## What a run costs (`make bench-cost SCALE={options.scale:g}`, {report['date']}, medians of {options.rounds} rounds, interleaved)",
        "",
        "Whole runs as a post-hook runs them (every statement), timed inside one warm dbt process beside Spark's own ANALYZE of the "
        "same table, and Spark's floor under any run in the same rounds: the least statements any design must send (a `DESCRIBE`, "
        "a started mark, a read of the stored state, one `INSERT` of the scan's aggregate), sent through dbt "
        "([docs/decisions/spark-floor.md](docs/decisions/spark-floor.md)).",
        "",
        "| figure | ours (s) | statements | compared with (s) | ratio | Spark's floor (s) | the floor's ratio |",
        "|---|---:|---:|---:|---:|---:|---:|",
        f"| small: 1,000 rows x 8 columns, full run | {small['ours']['seconds']:.2f} | {small['ours']['statements']:g} | Spark's ANALYZE {small['spark']['seconds']:.2f} "
        f"| {small['ours']['seconds'] / small['spark']['seconds']:.2f}x | {small['floor']['seconds']:.2f} | {small['floor']['seconds'] / small['spark']['seconds']:.2f}x |",
        f"| basic: mixed {report['mixed_rows']:,} rows | {basic['ours']['seconds']:.2f} | {basic['ours']['statements']:g} | Spark's ANALYZE {basic['spark']['seconds']:.2f} "
        f"| {basic['ours']['seconds'] / basic['spark']['seconds']:.2f}x | {basic['floor']['seconds']:.2f} | {basic['floor']['seconds'] / basic['spark']['seconds']:.2f}x |",
        f"| full: mixed {report['mixed_rows']:,} rows | {full['ours']['seconds']:.2f} | {full['ours']['statements']:g} | Spark's ANALYZE with histograms {full['spark']['seconds']:.2f} "
        f"| {full['ours']['seconds'] / full['spark']['seconds']:.2f}x | {full['floor']['seconds']:.2f} | {full['floor']['seconds'] / full['spark']['seconds']:.2f}x |",
        f"| incremental: 1 new partition of 31 | {inc['incremental']['seconds']:.2f} | {inc['incremental']['statements']:g} | full run {inc['full']['seconds']:.2f} "
        f"| {inc['incremental']['seconds'] / inc['full']['seconds']:.2f}x | {inc['floor_incremental']['seconds']:.2f} "
        f"| {inc['floor_incremental']['seconds'] / inc['floor_full']['seconds']:.2f}x of its full run's {inc['floor_full']['seconds']:.2f} |",
        f"| many partitions: 1 new day of 2,000 | {report['many_partitions']['seconds']:.2f} | {report['many_partitions']['statements']:g} | | | | |",
        f"| project, warm: what `analyze()` adds to `dbt build` of 12 models | {project['ours']['added']:.2f} | | what Spark's ANALYZE hook adds {project['spark']['added']:.2f} "
        f"| {project['ours']['added'] / project['spark']['added']:.2f}x | | |",
        f"| project: what `analyze(sketches='basic')` adds | {project['basic']['added']:.2f} | | what Spark's ANALYZE hook adds {project['spark']['added']:.2f} "
        f"| {project['basic']['added'] / project['spark']['added']:.2f}x | | |",
        "",
        f"The project's builds (s): no hook {project['none']['seconds']:.2f}, Spark's ANALYZE {project['spark']['seconds']:.2f}, "
        f"`analyze()` {project['ours']['seconds']:.2f}, `analyze(sketches='basic')` {project['basic']['seconds']:.2f}.",
        "",
        "Where a run spends its time (one warm run; each statement from its sql() to the end of its job; "
        "statements run at once overlap; Python lists the table's files; the rest is the run less the time any statement ran):",
        *profile_table("a small table's full run", profile),
        *profile_table("a run after one new day of 2,000", report["many_partitions_profile"]),
        "",
        "<!-- run_cost:end -->",
    ]
    return "\n".join(lines)


def profile_table(title: str, profile: dict) -> list[str]:
    return ["", f"| {title}: statement | s |", "|---|---:|",
            *(f"| `{entry['statement']}` | {entry['seconds']:.2f} |" for entry in profile["statements"]),
            f"| the rest of the run: Jinja, Python, dbt | {profile['rest']:.2f} |",
            f"| **the run** | **{profile['seconds']:.2f}** |"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--scale", type=float, default=1.0)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--out", type=Path, default=ROOT / "bench" / "out")
    options = parser.parse_args()
    spark = datasets.bench_session(options.out)
    spark.sql("create database if not exists analytics")
    spark.sql("drop database if exists analytics_stats cascade")
    report = measure(spark, options.scale, options.rounds)
    report.update({"date": time.strftime("%Y-%m-%d"), "scale": options.scale, "mixed_rows": int(2_000_000 * options.scale)})
    datasets.write_report(options.out, "run_cost", report, markdown(report, options))


if __name__ == "__main__":
    main()
