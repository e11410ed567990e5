"""Top values read off a KLL sketch against the top-k sketch's, on the benchmark's shapes.

    .venv/bin/python bench/top_values_from_kll.py [--rows 2000000]

A value that holds more than about 2ε·n rows is a plateau of a KLL sketch's CDF (k = 4,000: ε is
about 0.1%). So the candidates are the distinct values of the sketch's fine quantile grid (the one
the histograms' bin NDVs already read: 10 x 254 bins, G = 2,540 steps), and a candidate's frequency
is its run of grid points: n x run / G, within n / G (0.04%) plus the sketch's rank error. (Spark's
kll_sketch_get_rank takes only constant values, so ranks of the candidates themselves are out of
reach in SQL.) Both ways, against the
exact counts of each numeric and temporal column:
- recall: of the exact top 20 that are heavy hitters (above the 21st's count and above rows/256,
  as BENCHMARKS.md's accuracy section counts them), the share among the way's top 20;
- frequency error: the largest |estimate - exact| / rows over those found.
pyspark alone, in one session; every column's items compared as doubles (dates as days).
"""

from __future__ import annotations

import argparse
import json
import shutil
import tempfile
from pathlib import Path

from datasets import SHAPES

K, TRACKED, TOP, GRID = 4000, 256, 20, 2540
COLUMNS = {"n_int": "cast(n_int as double)", "n_double": "n_double", "d_date": "cast(unix_date(d_date) as double)"}


def exact_top(spark, table: str, value: str) -> tuple[int, list[tuple[float, int]]]:
    rows = spark.sql(f"select count({value}) from {table}").collect()[0][0]
    top = spark.sql(f"select {value} as v, count(*) as n from {table} where {value} is not null group by 1 order by n desc, v limit {TOP + 1}").collect()
    return rows, [(r["v"], r["n"]) for r in top]


def from_kll(spark, table: str, value: str) -> list[tuple[float, float]]:
    ranks = ", ".join(str(i / GRID) for i in range(GRID + 1))
    row = spark.sql(f"""select count({value}) as n, kll_sketch_get_quantile_double(kll_sketch_agg_double({value}, {K}), array({ranks})) as grid
                        from {table}""").collect()[0]
    runs: dict[float, int] = {}
    for point in row["grid"]:  # sorted: each value's run of grid points
        runs[point] = runs.get(point, 0) + 1
    steps = [(v, count * row["n"] / GRID) for v, count in runs.items()]
    return sorted(steps, key=lambda s: (-s[1], s[0]))[:TOP]


def from_top_k(spark, table: str, value: str) -> list[tuple[float, float]]:
    row = spark.sql(f"select approx_top_k_estimate(approx_top_k_accumulate({value}, {TRACKED}), {TOP}) as t from {table}").collect()[0]
    return [(item["item"], item["count"]) for item in row["t"]]


def score(rows: int, exact: list[tuple[float, int]], found: list[tuple[float, float]]) -> dict:
    cut = max(exact[TOP][1] if len(exact) > TOP else 0, rows / TRACKED)
    heavy = {v: n for v, n in exact[:TOP] if n > cut}
    if not heavy:
        return {"recall": None, "frequency_error": None}
    estimates = dict(found)
    hits = [v for v in heavy if v in estimates]
    return {"recall": len(hits) / len(heavy),
            "frequency_error": max((abs(estimates[v] - heavy[v]) / rows for v in hits), default=None)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rows", type=int, default=2_000_000)
    parser.add_argument("--out", type=Path, default=Path(__file__).resolve().parent / "out")
    options = parser.parse_args()
    from pyspark.sql import SparkSession

    home = Path(tempfile.mkdtemp(prefix="top_values_"))
    spark = (SparkSession.builder.master("local[2]").config("spark.ui.enabled", "false").config("spark.sql.shuffle.partitions", "4")
             .config("spark.driver.memory", "4g").config("spark.sql.warehouse.dir", str(home)).getOrCreate())
    spark.sparkContext.setLogLevel("ERROR")
    report = {}
    try:
        for shape, columns in SHAPES.items():
            table = f"shape_{shape}"
            spark.sql(f"create table {table} using parquet as select {', '.join(f'{e} as {c}' for c, e in columns.items())} from range({options.rows})")
            for column, value in COLUMNS.items():
                rows, exact = exact_top(spark, table, value)
                report[f"{table}.{column}"] = {"kll": score(rows, exact, from_kll(spark, table, value)),
                                               "top_k": score(rows, exact, from_top_k(spark, table, value))}
    finally:
        spark.stop()
        shutil.rmtree(home, ignore_errors=True)
    options.out.mkdir(parents=True, exist_ok=True)
    (options.out / "top_values_from_kll.json").write_text(json.dumps(report, indent=1))

    def cell(s: dict) -> str:
        return "n/a" if s["recall"] is None else f"{s['recall']:.2f} / {s['frequency_error']:.5f}"

    print("| column | KLL: recall / frequency error | top-k: recall / frequency error |")
    print("|---|---:|---:|")
    for name, r in report.items():
        print(f"| {name} | {cell(r['kll'])} | {cell(r['top_k'])} |")


if __name__ == "__main__":
    main()
