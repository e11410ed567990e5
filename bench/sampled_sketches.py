"""What feeding the KLL and top-k sketches a sample of the rows buys: a full run (histograms,
quantiles, most common values, string min/max) against Spark's ANALYZE with histograms, at several
sample sizes (dbt_analyze_sketch_sample_rows) and with every row (sample_sketches: false).

    make bench-sample                           # the mixed 2M-row table and TPC-H lineitem at SF 1
    python bench/sampled_sketches.py --sizes 100000 300000 1000000 --tpch-sf 1 --rounds 3

One warm dbt process, as bench/run_cost.py times a run; per sample size, Spark's ANALYZE with
histograms and our full run alternate round by round (medians after one round not counted).
Accuracy at the same sizes: `make estimation` with `--sample-rows`. Results:
bench/out/sampled_sketches.json and the section of BENCHMARKS.md between its markers.
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
from datasets import MIXED  # noqa: E402
from conftest import run_dbt  # noqa: E402

SPARK_ANALYZE = "analyze table {} compute statistics for all columns"


def interleaved(steps: list[dict], rounds: int, variables: dict) -> dict:
    """Medians of `rounds` rounds of the steps in one dbt invocation, after one round not counted."""
    result = run_dbt("run-operation", "bench_interleaved", "--args", json.dumps({"steps": steps, "rounds": rounds + 1}),
                     "--vars", json.dumps(variables))
    if not result.success:
        raise RuntimeError(result.error)
    line = next(m for m in result.messages if m.startswith("BENCH: "))
    return {name: statistics.median(t["ms"][1:]) / 1000 for name, t in json.loads(line[len("BENCH: "):]).items()}


def measure(spark, table: str, sizes: list[int], rounds: int) -> dict:
    spark.conf.set("spark.sql.statistics.histogram.enabled", "true")  # the session dbt shares
    try:
        found = {}
        for size in sizes + [None]:
            steps = [{"name": "spark", "sql": SPARK_ANALYZE.format(table)},
                     {"name": "ours", "analyze": {"relation": table, "columns": "all", "full": True,
                                                  **({} if size else {"sample_sketches": False})}}]
            timed = interleaved(steps, rounds, {"dbt_analyze_sketch_sample_rows": size or 1000})
            found[str(size or "every row")] = {**timed, "ratio": timed["ours"] / timed["spark"]}
            print(f"[{time.strftime('%H:%M:%S')}] {table}, {size or 'every row'}: {found[str(size or 'every row')]}", flush=True)
        return found
    finally:
        spark.conf.set("spark.sql.statistics.histogram.enabled", "false")


def markdown(report: dict) -> str:
    lines = ["<!-- sampled_sketches:start -->",
             f"## Full runs with sampled sketches (`{report['command']}`, {report['date']}, medians of {report['rounds']} rounds, "
             "interleaved)", "",
             "A full run (histograms, quantiles, most common values, string min/max) against Spark's `ANALYZE ... FOR ALL "
             "COLUMNS` with histograms (two passes), with the KLL and top-k sketches fed a sample sized to "
             "`dbt_analyze_sketch_sample_rows` rows, or every row. Exact measures and HLL always see every row. Accuracy "
             "at the same sizes: ESTIMATION.md.", "",
             "| table | rows | sketches see | ours (s) | Spark's with histograms (s) | ratio |", "|---|---:|---|---:|---:|---:|"]
    for table, entry in report["tables"].items():
        for size, timed in entry["sizes"].items():
            seen = "every row" if size == "every row" else f"{min(int(size), entry['rows']):,} rows"
            lines.append(f"| {table} | {entry['rows']:,} | {seen} | {timed['ours']:.2f} | {timed['spark']:.2f} | {timed['ratio']:.2f}x |")
    lines += ["", "<!-- sampled_sketches:end -->"]
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", type=int, nargs="+", default=[100000, 300000, 1000000])
    parser.add_argument("--rows", type=int, default=2_000_000, help="rows of the mixed table")
    parser.add_argument("--tpch-sf", type=float, default=1.0, help="TPC-H scale factor of lineitem; 0: none")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--out", type=Path, default=ROOT / "bench" / "out")
    options = parser.parse_args()
    spark = datasets.bench_session(options.out)
    spark.sql("create database if not exists analytics")
    tables = {datasets.create(spark, "sample_mixed", MIXED, options.rows): options.rows}
    if options.tpch_sf:
        lineitem = "analytics.tpch_lineitem"
        datasets.create_tpch(spark, options.tpch_sf, options.out / "tpch")
        tables[lineitem] = spark.table(lineitem).count()
    report = {"date": time.strftime("%Y-%m-%d"), "rounds": options.rounds,
              "command": f"python bench/sampled_sketches.py --tpch-sf {options.tpch_sf:g} --rounds {options.rounds}",
              "tables": {table: {"rows": count, "sizes": measure(spark, table, options.sizes, options.rounds)}
                         for table, count in tables.items()}}
    datasets.write_report(options.out, "sampled_sketches", report, markdown(report))


if __name__ == "__main__":
    main()
