"""Data tests two ways on TPC-H: the package's tests, which read statistics, against the
same checks as plain SQL over the data, one query per check (as dbt-expectations writes them).

    make bench-tests            # scale factors 0.1 and 1; BENCHMARKS.md, "Data tests from statistics"

bench/tests_project holds six checks of lineitem and orders, each written both ways (tags stats
and plain): the row count, a null fraction, a distinct count, min and max, a mean, and a unique
key. Per scale factor: tpchgen-cli generates the tables, one full analyze_table run collects their
statistics (untimed: a post-hook pays it during the build), then `dbt test --select tag:stats` and
`dbt test --select tag:plain` run interleaved in one warm process; medians of the rounds.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "integration_tests" / "tests"))
sys.path.insert(0, str(ROOT / "bench"))

import datasets  # noqa: E402
from conftest import run_dbt  # noqa: E402

PROJECT = ROOT / "bench" / "tests_project"
KINDS = ("stats", "plain")
START, END = "<!-- statistics_tests:start -->", "<!-- statistics_tests:end -->"


def dbt_in_project(*args: str):
    from dbt.cli.main import dbtRunner

    return dbtRunner().invoke([*args, "--project-dir", str(PROJECT), "--profiles-dir", str(PROJECT)])


def timed_test(kind: str) -> float:
    started = time.perf_counter()
    result = dbt_in_project("test", "--quiet", "--select", f"tag:{kind}")
    if not result.success:
        raise RuntimeError(f"dbt test of tag:{kind} failed: {result.exception}")
    return time.perf_counter() - started


def measure(spark, scale_factor: float, out: Path, rounds: int) -> dict:
    tables = datasets.create_tpch(spark, scale_factor, out / "tpch_tests")
    for table in tables:
        result = run_dbt("run-operation", "analyze_table", "--args", json.dumps({"relation": table, "columns": "all", "full": True}))
        assert result.success, result.error
    for kind in KINDS:  # the first test run of each kind compiles the project and Spark's classes
        timed_test(kind)
    seconds = {kind: [] for kind in KINDS}
    for _ in range(rounds):
        for kind in KINDS:
            seconds[kind].append(timed_test(kind))
    lineitem = spark.sql("select count(*) from analytics.tpch_lineitem").collect()[0][0]
    return {"scale_factor": scale_factor, "lineitem_rows": lineitem,
            **{kind: {"seconds": statistics.median(runs), "runs": runs} for kind, runs in seconds.items()}}


def markdown(report: dict) -> str:
    lines = [START, f"## Data tests from statistics (`make bench-tests`, {report['date']}, medians of {report['rounds']} rounds, interleaved)", "",
             "Six checks of TPC-H lineitem and orders (row count, null fraction, distinct count, min and max, mean, a unique key), "
             "each as the package's test, which reads the statistics tables, and as plain SQL over the data, one query per check "
             "(bench/tests_project). The statistics were collected once before (a post-hook pays that during the build). "
             "Each figure is a whole `dbt test` in a warm process.", "",
             "| scale factor | lineitem rows | `dbt test`, statistics (s) | `dbt test`, plain SQL (s) | plain / statistics |",
             "|---:|---:|---:|---:|---:|"]
    for entry in report["scale_factors"]:
        lines.append(f"| {entry['scale_factor']:g} | {entry['lineitem_rows']:,} | {entry['stats']['seconds']:.2f} | {entry['plain']['seconds']:.2f} | "
                     f"{entry['plain']['seconds'] / entry['stats']['seconds']:.2f}x |")
    first, last = report["scale_factors"][0], report["scale_factors"][-1]
    growth = {kind: last[kind]["seconds"] / first[kind]["seconds"] for kind in KINDS}
    lines += ["", f"From scale factor {first['scale_factor']:g} to {last['scale_factor']:g} the data grows "
                  f"{last['lineitem_rows'] / first['lineitem_rows']:.1f}x: the tests from statistics take {growth['stats']:.2f}x as long, "
                  f"the plain SQL tests {growth['plain']:.2f}x. A test from statistics plans the table (describe); the first test "
                  "of a table in a dbt invocation also lists its files against the stored states (a test never passes on stale "
                  "numbers) and reads its statistics, and the table's other tests reuse that read: the cost follows the number "
                  "of tables and their files, not their rows.", END]
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--scale-factors", type=float, nargs="+", default=[0.1, 1.0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--out", type=Path, default=ROOT / "bench" / "out")
    options = parser.parse_args()
    spark = datasets.bench_session(options.out)
    spark.sql("create database if not exists analytics")
    if not dbt_in_project("deps").success:
        raise RuntimeError("dbt deps failed in bench/tests_project")
    report = {"date": time.strftime("%Y-%m-%d"), "rounds": options.rounds,
              "scale_factors": [measure(spark, sf, options.out, options.rounds) for sf in options.scale_factors]}
    datasets.write_report(options.out, "statistics_tests", report, markdown(report))


if __name__ == "__main__":
    main()
