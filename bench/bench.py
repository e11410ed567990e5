"""Benchmark: our collection against Spark's own ANALYZE TABLE and a bare scan, in one run.

    make bench SCALE=1      # SCALE x 2M rows, 8 columns; a 30-partition table of SCALE x 3M rows

Every figure is the median of --repeat runs on the same table, in the same SparkSession (local[2]).
Ours is timed as the run's plan + scan + merge steps, as recorded in analyze_runs (dbt's own
start-up and project parsing are reported apart). Ratios are to Spark's ANALYZE and to a bare scan
of the same columns (`select sum(hash(<columns>))`).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "integration_tests" / "tests"))

from conftest import HOME, new_spark_session, run_dbt  # noqa: E402  (the tests' embedded Spark and in-process dbt)

COLUMNS = {
    "id": "id",
    "n_int": "cast(id % 100000 as int)",
    "n_double": "rand(1) * 1000",
    "n_decimal": "cast(id % 10000 as decimal(12, 2)) / 7",
    "s_text": "concat('customer-', cast(id % 500000 as string))",
    "d_date": "date_add(date'2020-01-01', cast(id % 1500 as int))",
    "t_time": "timestamp_seconds(1600000000 + id)",
    "b_flag": "id % 3 = 0",
}


def timed(action) -> float:
    start = time.perf_counter()
    action()
    return time.perf_counter() - start


def median_of(repeat: int, action) -> float:
    return statistics.median(timed(action) for _ in range(repeat))


def analyze(spark, **args) -> dict:
    """Our collection through dbt; returns the run's step times (s) and dbt's wall time (s)."""
    wall = time.perf_counter()
    result = run_dbt("run-operation", "analyze_table", "--args", json.dumps(args))
    wall = time.perf_counter() - wall
    if not result.success:
        raise RuntimeError(result.error)
    run = spark.sql("select * from analytics_stats.analyze_runs order by started_at desc limit 1").collect()[0]
    steps = (run["plan_ms"] or 0) + (run["scan_ms"] or 0) + (run["merge_ms"] or 0)
    return {"collection": steps / 1000, "scan": (run["scan_ms"] or 0) / 1000, "merge": (run["merge_ms"] or 0) / 1000,
            "dbt_wall": wall}


def median_analyze(spark, repeat, **args) -> dict:
    runs = [analyze(spark, **args) for _ in range(repeat)]
    return {key: statistics.median(r[key] for r in runs) for key in runs[0]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--scale", type=float, default=1.0)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--out", type=Path, default=ROOT / "bench" / "out")
    options = parser.parse_args()
    HOME.mkdir(parents=True, exist_ok=True)
    options.out.mkdir(parents=True, exist_ok=True)
    spark = new_spark_session(HOME, **{"spark.driver.memory": "4g"})
    assert run_dbt("deps").success
    rows = int(2_000_000 * options.scale)
    spark.sql("create database if not exists analytics")
    spark.sql("drop table if exists analytics.bench_wide")
    select = ", ".join(f"{expr} as {name}" for name, expr in COLUMNS.items())
    spark.sql(f"create table analytics.bench_wide using parquet as select {select} from range({rows})")
    columns = ", ".join(COLUMNS)

    results: dict[str, float] = {}
    results["bare_scan"] = median_of(options.repeat, lambda: spark.sql(f"select sum(hash({columns})) from analytics.bench_wide").collect())
    spark.conf.set("spark.sql.statistics.histogram.enabled", "false")
    results["spark_analyze"] = median_of(options.repeat, lambda: spark.sql(
        "analyze table analytics.bench_wide compute statistics for all columns").collect())
    spark.conf.set("spark.sql.statistics.histogram.enabled", "true")
    results["spark_analyze_histograms"] = median_of(options.repeat, lambda: spark.sql(
        "analyze table analytics.bench_wide compute statistics for all columns").collect())
    spark.conf.set("spark.sql.statistics.histogram.enabled", "false")
    basic = median_analyze(spark, options.repeat, relation="analytics.bench_wide", columns="all", full=True, sketches="basic")
    full = median_analyze(spark, options.repeat, relation="analytics.bench_wide", columns="all", full=True, sketches="full")
    results.update({"ours_basic": basic["collection"], "ours_basic_scan": basic["scan"], "ours_basic_merge": basic["merge"],
                    "ours_full": full["collection"], "ours_full_scan": full["scan"], "dbt_wall_basic": basic["dbt_wall"]})

    # Incremental: a 30-partition table, then one new partition.
    partitioned_rows = int(3_000_000 * options.scale)
    spark.sql("drop table if exists analytics.bench_parts")
    spark.sql(f"""create table analytics.bench_parts using parquet partitioned by (part) as
                  select {select}, cast(id % 30 as int) as part from range({partitioned_rows})""")
    full_parts = median_analyze(spark, options.repeat, relation="analytics.bench_parts", columns="all", full=True)
    incremental = []
    for attempt in range(options.repeat):
        spark.sql(f"""insert into analytics.bench_parts select {select}, {30 + attempt} as part
                      from range({partitioned_rows // 30})""")
        incremental.append(analyze(spark, relation="analytics.bench_parts", columns="all"))
    results["full_30_partitions"] = full_parts["collection"]
    results["incremental_one_partition"] = statistics.median(r["collection"] for r in incremental)
    results["incremental_merge"] = statistics.median(r["merge"] for r in incremental)

    # Merge cost alone: table statistics merged from 10, 100 and 1,000 partitions' states.
    for count in (10, 100, 1000):
        spark.sql("drop table if exists analytics.bench_many")
        spark.sql(f"""create table analytics.bench_many using parquet partitioned by (part) as
                      select {select}, cast(id % {count} as int) as part from range({count * 50})""")
        results[f"merge_{count}_partitions"] = analyze(spark, relation="analytics.bench_many", columns="all")["merge"]

    ratios = {
        "ours basic (HLL) / Spark ANALYZE": results["ours_basic"] / results["spark_analyze"],
        "ours full (HLL+KLL+top-k) / Spark ANALYZE with histograms": results["ours_full"] / results["spark_analyze_histograms"],
        "ours basic / bare scan": results["ours_basic"] / results["bare_scan"],
        "ours full / bare scan": results["ours_full"] / results["bare_scan"],
        "Spark ANALYZE / bare scan": results["spark_analyze"] / results["bare_scan"],
        "Spark ANALYZE with histograms / bare scan": results["spark_analyze_histograms"] / results["bare_scan"],
        "incremental (1 new of 31 partitions) / full": results["incremental_one_partition"] / results["full_30_partitions"],
    }
    report = {"rows": rows, "partitioned_rows": partitioned_rows, "columns": len(COLUMNS), "repeat": options.repeat,
              "machine": f"{platform.machine()}, {os.cpu_count()} cores, local[2]", "spark": spark.version,
              "seconds": results, "ratios": ratios, "date": time.strftime("%Y-%m-%d")}
    (options.out / "results.json").write_text(json.dumps(report, indent=2))
    (ROOT / "BENCHMARKS.md").write_text(markdown(report, options))
    print(f"\n{rows:,} rows x {len(COLUMNS)} columns; medians of {options.repeat} runs (seconds)")
    for name, value in results.items():
        print(f"  {name:32s} {value:8.2f}")
    print("\nratios")
    for name, value in ratios.items():
        print(f"  {name:60s} {value:6.2f}x")


def markdown(report: dict, options) -> str:
    """The report as BENCHMARKS.md: what was measured, on what, and the figures."""
    import pyspark

    lines = [
        "# Benchmarks",
        "",
        f"Generated by `make bench SCALE={options.scale:g}` on {report['date']}: {report['machine']}, "
        f"Spark {report['spark']}, pyspark {pyspark.__version__}, Python {platform.python_version()}.",
        f"Unpartitioned table: {report['rows']:,} rows x {report['columns']} columns (bigint, int, double, decimal, "
        f"string, date, timestamp, boolean); partitioned table: {report['partitioned_rows']:,} rows in 30 partitions.",
        f"Medians of {report['repeat']} runs. Ours is the run's plan + scan + merge steps from `analyze_runs`; "
        "a bare scan is `select sum(hash(<all columns>))`.",
        "",
        "| measurement | seconds |",
        "|---|---:|",
    ]
    lines += [f"| {name} | {value:.2f} |" for name, value in report["seconds"].items()]
    lines += ["", "| ratio | value |", "|---|---:|"]
    lines += [f"| {name} | {value:.2f}x |" for name, value in report["ratios"].items()]
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    main()
