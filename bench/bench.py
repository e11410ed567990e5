"""Benchmark: what collection costs and how good the numbers are, ours against Spark's, in one run.

    make bench SCALE=1      # base: SCALE x 2M rows; every table is generated offline

Tables: a mixed 8-column table; synthetic shapes (uniform, Zipf-like, heavily duplicated, 90% null;
4 columns each) and a 200-column table; TPC-H lineitem and orders (tpchgen-cli, scale factor
0.1 x SCALE); a 30-partition table. Measured on the same tables in one SparkSession (local[2]):
- our collection (basic; with sketches; with histograms) against Spark's ANALYZE ... FOR ALL COLUMNS
  without and with histograms, and a bare scan of the same columns (`select sum(hash(...))`);
- where our time goes: each kind of aggregate alone over the mixed table;
- incremental collection after one new partition against a full one (30 partitions);
- on 1,000 partitions: a run that finds nothing changed, one after a new partition, Spark's ANALYZE;
- merge time for 10, 100 and 1,000 partitions;
- time against rows (1x, 4x, 16x) and columns (10, 50, 200);
- accuracy (bench/accuracy.py): NDV error, histogram bin error, top-value recall; and the q-error
  of selectivity estimates (bench/estimation.py).
Ours is timed as the run's plan + scan + merge steps recorded in analyze_runs (dbt's start-up and
project parsing are reported apart). The mixed table's figures are medians of --repeat runs; the
others are single runs. Results: BENCHMARKS.md, bench/out/results.json, bench/out/*.png.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import platform
import re
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "integration_tests" / "tests"))
sys.path.insert(0, str(ROOT / "bench"))

import accuracy  # noqa: E402
import datasets  # noqa: E402
from datasets import MIXED  # noqa: E402
import estimation  # noqa: E402
import plots  # noqa: E402
from conftest import run_dbt  # noqa: E402  (the tests' embedded Spark and in-process dbt)

# the package's default k, read from where it is set
KLL_K = int(re.search(r"'dbt_analyze_kll_k': (\d+)", (ROOT / "macros" / "_config.sql").read_text()).group(1))
TOP_K_TRACKED = int(re.search(r"'dbt_analyze_top_k_tracked': (\d+)", (ROOT / "macros" / "_config.sql").read_text()).group(1))
NUMERIC_CASTS = {"n_int": "int", "n_double": "double", "d_date": "date", "l_extendedprice": "decimal(15,2)",
                 "l_shipdate": "date", "o_totalprice": "decimal(15,2)", "o_orderdate": "date"}


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
    return {"collection": steps / 1000, "plan": (run["plan_ms"] or 0) / 1000, "scan": (run["scan_ms"] or 0) / 1000,
            "merge": (run["merge_ms"] or 0) / 1000, "dbt_wall": wall}


def median_analyze(spark, repeat, **args) -> dict:
    return medians([analyze(spark, **args) for _ in range(repeat)])


def medians(runs: list[dict]) -> dict:
    return {key: statistics.median(r[key] for r in runs) for key in runs[0]}


def spark_analyze(spark, table: str, histograms: bool) -> float:
    spark.conf.set("spark.sql.statistics.histogram.enabled", str(histograms).lower())
    try:
        return timed(lambda: spark.sql(f"analyze table {table} compute statistics for all columns").collect())
    finally:
        spark.conf.set("spark.sql.statistics.histogram.enabled", "false")


def bare_scan(spark, table: str, columns: list[str]) -> float:
    return timed(lambda: spark.sql(f"select sum(hash({', '.join(map(accuracy.quote, columns))})) from {table}").collect())


def compare(spark, table: str, columns: list[str]) -> dict:
    """One table: Spark's ANALYZE (without, then with histograms: its statistics stay for the
    accuracy comparison), ours basic and full, a bare scan."""
    result = {"bare_scan": bare_scan(spark, table, columns), "spark_analyze": spark_analyze(spark, table, False),
              "spark_analyze_histograms": spark_analyze(spark, table, True)}
    basic = analyze(spark, relation=table, columns="all", full=True, sketches="basic")
    full = analyze(spark, relation=table, columns="all", full=True, sketches="full")
    result.update({"ours_basic": basic["collection"], "ours_sketches": full["plan"] + full["scan"], "ours_full": full["collection"]})
    return result


def profile(spark, table: str, repeat: int) -> dict:
    """Each kind of aggregate alone over the table's columns: where a collection's scan time goes."""
    columns = {name: accuracy.quote(name) for name in MIXED}
    numeric = [c for n, c in columns.items() if n.startswith(("n_", "id"))]
    hll_inputs = {"id": "id", "n_int": "cast(n_int as bigint)", "n_double": "if(n_double is null, null, xxhash64(n_double))",
                  "n_decimal": "if(n_decimal is null, null, xxhash64(n_decimal))", "s_text": "if(s_text is null, null, xxhash64(s_text))",
                  "d_date": "unix_date(d_date)", "t_time": "unix_micros(t_time)", "b_flag": "cast(b_flag as int)"}
    kinds = {
        "exact aggregates (count, min, max, sums)": ", ".join(
            [f"count({c}), min({c}), max({c})" for c in columns.values()] + [f"sum({c}), sum({c} * {c})" for c in numeric]),
        "Spark's HLL++ (approx_count_distinct)": ", ".join(f"approx_count_distinct({c})" for c in columns.values()),
        # fed as our scan feeds it: numbers as bigint, dates and timestamps as numbers, the rest hashed
        "DataSketches HLL (hll_sketch_agg, lgK 14)": ", ".join(f"hll_sketch_agg({hll_inputs[n]}, 14)" for n in columns),
        f"KLL (kll_sketch_agg_double, k {KLL_K})": ", ".join(f"kll_sketch_agg_double(cast({c} as double), {KLL_K})" for c in numeric),
        "top-k (approx_top_k_accumulate, 256)": ", ".join(f"approx_top_k_accumulate(cast({c} as string), 256)" for c in columns.values()),
    }
    return {name: median_of(repeat, lambda sql=sql: spark.sql(f"select {sql} from {table}").collect()) for name, sql in kinds.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--scale", type=float, default=1.0)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--tpch-sf", type=float, default=None,
                        help="TPC-H scale factor of lineitem and orders (default: 0.1 x --scale; 1 is 6,001,215 lineitem rows)")
    parser.add_argument("--out", type=Path, default=ROOT / "bench" / "out")
    parser.add_argument("--accuracy-only", action="store_true",
                        help="measure the accuracy again on the tables of the last run (bench/out/results.json) and rewrite the report")
    options = parser.parse_args()
    spark = datasets.bench_session(options.out)
    if options.accuracy_only:
        report = json.loads((options.out / "results.json").read_text())
        options.scale, options.tpch_sf = report["scale"], report.get("tpch_sf")
        for name, dataset in report["datasets"].items():
            if isinstance(dataset["columns"], int):  # a report of an older version counted them only
                dataset["columns"] = spark.table(name).columns
        report["accuracy"] = measure_accuracy(spark, report["datasets"])
        write_report(report, options)
        return
    spark.sql("create database if not exists analytics")
    # from empty statistics tables: runs read their table's history, so figures would otherwise
    # depend on what earlier benchmarks and tests left there
    spark.sql("drop database if exists analytics_stats cascade")
    rows = int(2_000_000 * options.scale)
    report: dict = {"rows": rows, "repeat": options.repeat, "scale": options.scale, "date": time.strftime("%Y-%m-%d"),
                    "machine": f"{platform.machine()}, {os.cpu_count()} cores, local[2]", "spark": spark.version}

    def step(name: str) -> None:
        print(f"[{time.strftime('%H:%M:%S')}] {name}", flush=True)

    # --- the mixed table: medians of --repeat runs ---------------------------------------------
    step("mixed table")
    table = datasets.create(spark, "bench_wide", MIXED, rows)
    seconds = {"bare_scan": median_of(options.repeat, lambda: bare_scan(spark, table, list(MIXED))),
               "spark_analyze": median_of(options.repeat, lambda: spark_analyze(spark, table, False)),
               "spark_analyze_histograms": median_of(options.repeat, lambda: spark_analyze(spark, table, True))}
    basic = median_analyze(spark, options.repeat, relation=table, columns="all", full=True, sketches="basic")
    full = median_analyze(spark, options.repeat, relation=table, columns="all", full=True, sketches="full")
    seconds.update({"ours_basic": basic["collection"], "ours_basic_plan": basic["plan"], "ours_basic_scan": basic["scan"],
                    "ours_basic_merge": basic["merge"], "ours_sketches": full["plan"] + full["scan"], "ours_full": full["collection"],
                    "ours_full_scan": full["scan"], "ours_full_merge": full["merge"], "dbt_wall_basic": basic["dbt_wall"]})
    report["seconds"] = seconds
    step("profile")
    report["profile"] = profile(spark, table, options.repeat)

    # --- datasets: shapes, wide, TPC-H ---------------------------------------------------------
    step("datasets")
    tables = datasets.create_shapes(spark, rows)
    tables[datasets.create(spark, "shape_wide_200", datasets.wide_columns(200), rows // 8)] = list(datasets.wide_columns(200))
    tpch_scale = options.tpch_sf or max(0.01, round(0.1 * options.scale, 3))
    tables.update(datasets.create_tpch(spark, tpch_scale, options.out / "tpch"))
    report["tpch_scale_factor"], report["tpch_sf"] = tpch_scale, options.tpch_sf
    report["datasets"] = {}
    for name, columns in tables.items():
        step(f"  {name}")
        report["datasets"][name] = {"rows": spark.table(name).count(), "columns": columns, **compare(spark, name, columns)}
    report["accuracy"] = measure_accuracy(spark, report["datasets"])

    # --- incremental and merge -----------------------------------------------------------------
    # partitions of 100,000 rows x SCALE, then ten times larger: the incremental run's cost is
    # mostly fixed (statements), a full one's grows with the rows
    partitioned_rows = int(3_000_000 * options.scale)
    select = ", ".join(f"{expression} as {column}" for column, expression in MIXED.items())
    for suffix, rows_total in (("", partitioned_rows), ("_large", 10 * partitioned_rows)):
        step(f"incremental, {rows_total // 30:,} rows per partition")
        parts = datasets.create(spark, "bench_parts", MIXED, rows_total, partitions=30)
        full_parts = analyze(spark, relation=parts, columns="all", full=True)
        runs = []
        for new_part in range(30, 30 + options.repeat):  # one new partition each time: the 31st, the 32nd, ...
            spark.sql(f"insert into {parts} select {select}, {new_part} as part from range({rows_total // 30})")
            runs.append(analyze(spark, relation=parts, columns="all"))
        incremental = medians(runs)
        seconds.update({f"full_30_partitions{suffix}": full_parts["collection"], f"incremental_one_partition{suffix}": incremental["collection"],
                        f"incremental_plan{suffix}": incremental["plan"], f"incremental_scan{suffix}": incremental["scan"],
                        f"incremental_merge{suffix}": incremental["merge"]})
        report[f"partitioned_rows{suffix}"] = rows_total
        spark.sql(f"drop table {parts}")
    step("merge")
    for count in (10, 100, 1000):
        many = datasets.create(spark, "bench_many", MIXED, count * 50, partitions=count)
        seconds[f"merge_{count}_partitions"] = analyze(spark, relation=many, columns="all")["merge"]
    # the 1,000-partition table (days of three years) again: a run that finds nothing changed, one
    # after a new partition, and Spark's ANALYZE of it; their plan steps list 1,000 directories
    unchanged = median_analyze(spark, options.repeat, relation=many, columns="all")
    runs = []
    for new_part in range(1000, 1000 + options.repeat):
        spark.sql(f"insert into {many} select {select}, {new_part} as part from range(50)")
        runs.append(analyze(spark, relation=many, columns="all"))
    seconds.update({"unchanged_1000_partitions": unchanged["collection"], "unchanged_1000_partitions_plan": unchanged["plan"],
                    "incremental_1000_partitions": medians(runs)["collection"], "spark_analyze_1000_partitions": spark_analyze(spark, many, False)})

    # --- scaling -------------------------------------------------------------------------------
    report["scaling"] = {"rows": {}, "columns": {}}
    base = max(rows // 8, 10_000)
    for factor in (1, 4, 16):
        step(f"scaling rows x{factor}")
        name = datasets.create(spark, "bench_scale", MIXED, base * factor)
        report["scaling"]["rows"][str(base * factor)] = compare(spark, name, list(MIXED))
    for count in (10, 50, 200):
        step(f"scaling columns {count}")
        name = datasets.create(spark, "bench_scale", datasets.wide_columns(count), base)
        report["scaling"]["columns"][str(count)] = compare(spark, name, list(datasets.wide_columns(count)))

    # --- estimation quality --------------------------------------------------------------------
    step("estimation")
    estimation.write_report(estimation.measure(spark, rows // 2), f"make bench SCALE={options.scale:g}", options.out)

    write_report(report, options)


def measure_accuracy(spark, datasets: dict) -> dict:
    """NDV errors, histogram bin errors and top-value recall of the datasets' tables, whose
    statistics (ours and Spark's) the timed runs left behind."""
    result = {"ndv": {}, "bins": {}, "top_recall": {}}
    for name, dataset in datasets.items():
        columns = dataset["columns"]
        result["ndv"][name] = {who: accuracy.summary(errors) for who, errors in accuracy.ndv_errors(spark, name, columns[:24]).items()}
        for column in columns:
            if column in NUMERIC_CASTS and not name.endswith("duplicated"):
                errors = accuracy.histogram_errors(spark, name, column, NUMERIC_CASTS[column])
                result["bins"][f"{name}.{column}"] = {who: accuracy.summary(e) for who, e in errors.items()}
            if not name.endswith("wide_200"):
                recall = accuracy.top_value_recall(spark, name, column)
                if recall is not None:
                    result["top_recall"][f"{name}.{column}"] = recall
    return result


def write_report(report: dict, options) -> None:
    report["goals"] = goals(report)
    report["settings"] = {"kll_k": KLL_K, "top_k_tracked": TOP_K_TRACKED, "command": command(options)}
    (options.out / "results.json").write_text(json.dumps(report, indent=2, default=str))
    plots.ratios([g for g in report["goals"] if " / " in g["name"]], options.out / "ratios.png")  # the time ratios
    plots.scaling(report["scaling"]["rows"], report["scaling"]["columns"], options.out / "scaling.png")
    plots.accuracy(report["accuracy"]["ndv"], options.out / "accuracy.png")
    section = markdown(report)
    datasets.write_section("bench", section)
    print(section)


def command(options) -> str:
    return f"make bench SCALE={options.scale:g}{f' TPCH_SF={options.tpch_sf:g}' if options.tpch_sf else ''}"


def exponent(points: dict, series: str) -> float:
    """The slope of log(seconds) against log(size): 1 is linear."""
    sizes = sorted(int(size) for size in points)
    first, last = sizes[0], sizes[-1]
    return math.log(points[str(last)][series] / points[str(first)][series]) / math.log(last / first)


def goals(report: dict) -> list[dict]:
    seconds = report["seconds"]
    ndv_p95 = max(summary["ours"]["p95"] for summary in report["accuracy"]["ndv"].values() if summary["ours"])
    spark_ndv_p95 = max(summary["spark"]["p95"] for summary in report["accuracy"]["ndv"].values() if summary["spark"])
    found = [
        ("ours full with histograms / Spark's ANALYZE with histograms", seconds["ours_full"] / seconds["spark_analyze_histograms"], 0.5),
        ("ours basic / Spark's ANALYZE", seconds["ours_basic"] / seconds["spark_analyze"], 1.0),
        ("incremental (1 new of 31 partitions of %s rows) / full" % f"{report['partitioned_rows'] // 30:,}",
         seconds["incremental_one_partition"] / seconds["full_30_partitions"], 0.1),
        *([("incremental (1 new of 31 partitions of %s rows) / full" % f"{report['partitioned_rows_large'] // 30:,}",
            seconds["incremental_one_partition_large"] / seconds["full_30_partitions_large"], 0.1)]
          if "full_30_partitions_large" in seconds else []),
        ("NDV relative error p95, worst table (Spark's: %.1f%%)" % (100 * spark_ndv_p95), ndv_p95, 0.02),
        ("time against rows: exponent (1 = linear)", exponent(report["scaling"]["rows"], "ours_full"), 1.1),
        ("time against columns: exponent (1 = linear)", exponent(report["scaling"]["columns"], "ours_full"), 1.1),
    ]
    return [{"name": name, "value": value, "goal": goal, "met": value <= goal} for name, value, goal in found]


def markdown(report: dict) -> str:
    """BENCHMARKS.md's section of this run: the ratios against Spark's ANALYZE and a bare scan, the
    datasets, incremental runs, scale, and accuracy (the raw seconds are in results.json)."""
    seconds, settings = report["seconds"], report["settings"]
    ratio = lambda a, b: f"{seconds[a] / seconds[b]:.2f}x"  # noqa: E731
    lines = [
        "<!-- bench:start -->",
        f"## Tables of every shape, incremental runs, scale (`{settings['command']}`, {report['date']})", "",
        f"{report['machine']}, Spark {report['spark']}; KLL k {settings['kll_k']:,}, top-k sketches of {settings['top_k_tracked']:,} "
        f"items. Ours is a run's plan + scan + merge steps from `analyze_runs`; \"basic\" is Spark's statistic set with a mergeable "
        "HLL sketch, \"full\" adds the KLL and top-k sketches and the quantiles, 254-bin histograms and top values read off them. "
        "Spark's is `ANALYZE TABLE ... COMPUTE STATISTICS FOR ALL COLUMNS`, with histograms when `spark.sql.statistics.histogram.enabled`. "
        f"The mixed table ({report['rows']:,} rows x 8 columns) is the median of {report['repeat']} runs; the rest are single runs; "
        "raw figures in `bench/out/results.json`.", "",
        "| the mixed table | ratio |", "|---|---:|",
        f"| ours basic / Spark's ANALYZE | {ratio('ours_basic', 'spark_analyze')} |",
        f"| ours full / Spark's ANALYZE with histograms | {ratio('ours_full', 'spark_analyze_histograms')} |",
        f"| ours full / bare scan | {ratio('ours_full', 'bare_scan')} |",
        f"| Spark's ANALYZE with histograms / bare scan | {ratio('spark_analyze_histograms', 'bare_scan')} |",
        f"| incremental: 1 new of 31 partitions ({report['partitioned_rows'] // 30:,} rows each) / full | "
        f"{ratio('incremental_one_partition', 'full_30_partitions')} |",
    ]
    if "full_30_partitions_large" in seconds:
        lines.append(f"| incremental: 1 new of 31 partitions ({report['partitioned_rows_large'] // 30:,} rows each) / full | "
                     f"{ratio('incremental_one_partition_large', 'full_30_partitions_large')} |")
    if "unchanged_1000_partitions" in seconds:
        lines += [f"| a run finding nothing changed in 1,000 partitions / Spark's ANALYZE of them | "
                  f"{ratio('unchanged_1000_partitions', 'spark_analyze_1000_partitions')} |",
                  f"| a run after one new of 1,001 partitions / Spark's ANALYZE of them | "
                  f"{ratio('incremental_1000_partitions', 'spark_analyze_1000_partitions')} |"]
    lines += ["", f"Merging a table's statistics from 10 / 100 / 1,000 partitions' states: {seconds['merge_10_partitions']:.2f} / "
              f"{seconds['merge_100_partitions']:.2f} / {seconds['merge_1000_partitions']:.2f} s, no rescan.", "",
              "| table | rows | columns | bare scan (s) | Spark's ANALYZE | with histograms | ours basic | ours full | ours full / Spark's with histograms |",
              "|---|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for name, d in report["datasets"].items():
        lines.append(f"| {name.split('.')[-1]} | {d['rows']:,} | {len(d['columns'])} | {d['bare_scan']:.2f} | {d['spark_analyze']:.2f} | "
                     f"{d['spark_analyze_histograms']:.2f} | {d['ours_basic']:.2f} | {d['ours_full']:.2f} | "
                     f"{d['ours_full'] / d['spark_analyze_histograms']:.2f}x |")
    lines += ["", "![scaling](bench/out/scaling.png)", "",
              "| scale | bare scan (s) | Spark's ANALYZE | with histograms | ours basic | ours full |", "|---|---:|---:|---:|---:|---:|"]
    for kind in ("rows", "columns"):
        for size, d in report["scaling"][kind].items():
            lines.append(f"| {int(size):,} {kind} | {d['bare_scan']:.2f} | {d['spark_analyze']:.2f} | {d['spark_analyze_histograms']:.2f} | "
                         f"{d['ours_basic']:.2f} | {d['ours_full']:.2f} |")
    exponents = {g["name"]: g["value"] for g in report["goals"] if "exponent" in g["name"]}
    lines += ["", "Time against size, as the exponent of a power law (1 is linear): " + "; ".join(
        f"{name.split(':')[0].replace('time against ', '')} {value:.2f}" for name, value in exponents.items())
        + ". Below 1: a run's fixed cost, which larger tables amortize.", ""]
    lines += accuracy_lines(report["accuracy"], settings)
    lines += ["<!-- bench:end -->"]
    return "\n".join(lines)


def accuracy_lines(accuracy_: dict, settings: dict) -> list[str]:
    """NDV error and histogram bin error against exact figures, ours beside Spark's, and top-value recall."""
    percent = lambda x: f"{100 * x['p50']:.2f}% / {100 * x['p95']:.2f}% / {100 * x['max']:.2f}%" if x else "-"  # noqa: E731
    bins = lambda x: f"{x['p50']:.3f} / {x['p95']:.3f} / {x['max']:.2f}" if x else "-"  # noqa: E731
    lines = ["### Accuracy (the same run)", "",
             "![accuracy](bench/out/accuracy.png)", "",
             "NDV relative error against exact `count(distinct)`, per column (p50 / p95 / max):", "",
             "| table | ours | Spark's |", "|---|---|---|"]
    lines += [f"| {name.split('.')[-1]} | {percent(s['ours'])} | {percent(s['spark'])} |" for name, s in accuracy_["ndv"].items()]
    lines += ["", "Histogram bins: |rows in the bin - rows/254| / (rows/254) (p50 / p95 / max; a value holding more than a bin's "
              "share cannot be split, so skewed columns have heavy bins in both). Ours are cut from merged KLL sketches, Spark's "
              "from `percentile_approx` at accuracy 10,000 over a full scan:", "",
              "| column | ours | Spark's |", "|---|---|---|"]
    lines += [f"| {name.split('.', 1)[-1]} | {bins(s['ours'])} | {bins(s['spark'])} |" for name, s in accuracy_["bins"].items()]
    recalls = list(accuracy_["top_recall"].values())
    lines += ["", f"Top values: recall of the exact top 20 over the heavy hitters (above the 21st's count and rows/"
              f"{settings['top_k_tracked']}), {len(recalls)} columns: {sum(r == 1 for r in recalls)} at 1.00, the lowest "
              f"{min(recalls):.2f} ({min(accuracy_['top_recall'], key=accuracy_['top_recall'].get).split('.', 1)[-1]}). "
              "Equality and range estimates: [ESTIMATION.md](ESTIMATION.md).", ""]
    return lines

if __name__ == "__main__":
    main()
