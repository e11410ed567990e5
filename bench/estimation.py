"""Estimation quality: row-count estimates of range and equality predicates, ours against Spark's.

    make estimation [SCALE=1]     # SCALE x 1M rows; writes ESTIMATION.md and bench/out/estimation.json

On one table with a uniform, a skewed (log-uniform: many small values, a long tail) and a heavily
duplicated (20 values) column, for random predicates `x <= c` and `x = v` (constants drawn from the
data, so no predicate is empty):
- ours: from our equi-height histogram (rows of the bins below c, plus the covered share of the
  bin holding c) and, for equality, our top values (their counts) or else the rows of v's bins
  divided by those bins' distinct counts;
- ours, hybrid: the same from the hybrid histogram (common values apart, bins over the rest);
- Spark's: the CBO's own Filter estimate (EXPLAIN COST) with the statistics of Spark's
  `ANALYZE ... FOR ALL COLUMNS` and `spark.sql.statistics.histogram.enabled=true`, on a copy.
q-error = max(estimate / true, true / estimate), estimates floored at 1 row.
"""

from __future__ import annotations

import argparse
import json
import random
import re
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "integration_tests" / "tests"))

from conftest import HOME, new_spark_session, run_dbt  # noqa: E402

COLUMNS = {
    "uniform": "cast(rand(11) * 1000000 as int)",
    "skewed": "cast(floor(pow(1000000, rand(12))) as int)",
    "duplicated": "cast(id % 20 as int)",
}
PREDICATES = 60


def q_error(estimate: float, true: float) -> float:
    estimate, true = max(estimate, 1.0), max(true, 1.0)
    return max(estimate / true, true / estimate)


def ours_range(bins: list[tuple[float, float, float]], c: float) -> float:
    rows = 0.0
    for lower, upper, count in bins:
        if upper <= c:
            rows += count
        elif lower <= c:
            rows += count * ((c - lower) / (upper - lower) if upper > lower else 1.0)
    return rows


def ours_equality(bins: list[tuple[float, float, float, int]], top: dict[float, int], v: float) -> float:
    if v in top:
        return top[v]
    # rows of the bins that can hold v over their distinct values
    holding = [(count, ndv) for lower, upper, count, ndv in bins if lower <= v <= upper]
    return sum(count for count, _ in holding) / max(sum(ndv for _, ndv in holding), 1) if holding else 1.0


def hybrid_estimate(rows: list[tuple], kind: str, v: float) -> float:
    """From a hybrid histogram (column_histograms_hybrid rows): common values by their counts,
    the rest from the bins (interpolated for ranges; rows over distinct values for equality)."""
    common = {float(r[6]): r[8] for r in rows if r[4] == "mcv"}
    bins = [(float(r[6]), float(r[7]), r[8], r[9]) for r in rows if r[4] == "bin"]
    if kind == "equality":
        if v in common:
            return common[v]
        holding = [(count, ndv) for lower, upper, count, ndv in bins if lower < v <= upper or (v == lower == bins[0][0])]
        return sum(c for c, _ in holding) / max(sum(n for _, n in holding), 1) if holding else 1.0
    return sum(n for value, n in common.items() if value <= v) + ours_range([b[:3] for b in bins], v)


def spark_estimate(spark, table: str, predicate: str) -> float:
    plan = spark.sql(f"explain cost select * from {table} where {predicate}").collect()[0][0]
    optimized = plan.split("== Optimized Logical Plan ==")[1]
    return float(re.search(r"rowCount=([0-9.E+]+)", optimized).group(1))


def summary(errors: list[float]) -> dict:
    ordered = sorted(errors)
    return {"p50": statistics.median(ordered), "p95": ordered[int(0.95 * (len(ordered) - 1))], "max": ordered[-1]}


def measure(spark, rows: int) -> dict:
    """Both tables, both statistics, the q-errors per column and predicate kind."""
    select = ", ".join(f"{expr} as {name}" for name, expr in COLUMNS.items())
    spark.sql("create database if not exists analytics")
    for table in ("estimation_ours", "estimation_spark"):
        spark.sql(f"drop table if exists analytics.{table}")
        spark.sql(f"create table analytics.{table} using parquet as select {select} from range({rows})")
    result = run_dbt("run-operation", "analyze_table", "--args", json.dumps({"relation": "analytics.estimation_ours", "columns": "all"}))
    assert result.success, result.error
    spark.conf.set("spark.sql.statistics.histogram.enabled", "true")
    spark.sql("analyze table analytics.estimation_spark compute statistics for all columns")
    spark.conf.set("spark.sql.statistics.histogram.enabled", "false")
    spark.conf.set("spark.sql.cbo.enabled", "true")

    from dbt_analyze.hybrid_histogram import hybrid_rows

    def current(view: str) -> list[dict]:
        return [r.asDict() for r in spark.sql(f"""select * from analytics_stats.{view} where table_name = 'estimation_ours'
                                                  and partition_spec = ''""").collect()]

    hybrid = hybrid_rows(current("table_statistics"), current("column_statistics"),
                         sorted(current("column_histograms"), key=lambda r: r["bin"]), current("column_top_values"))
    rng = random.Random(7)
    report: dict[str, dict] = {}
    for column in COLUMNS:
        hybrid_column = [r for r in hybrid if r[3] == column]
        histogram = [(float(r["lower_bound"]), float(r["upper_bound"]), float(r["row_count"]), int(r["distinct_count"]))
                     for r in spark.sql(f"""select * from analytics_stats.column_histograms where table_name = 'estimation_ours'
                                            and partition_spec = '' and column_name = '{column}' order by bin""").collect()]
        top = {float(r["value"]): int(r["frequency"]) for r in spark.sql(
            f"""select * from analytics_stats.column_top_values where table_name = 'estimation_ours'
                and partition_spec = '' and column_name = '{column}'""").collect()}
        sample = [r[0] for r in spark.sql(f"select {column} from analytics.estimation_ours tablesample (1 percent) repeatable (7)").collect()]
        errors = {kind: {"ours": [], "ours_hybrid": [], "spark": []} for kind in ("range", "equality")}
        for kind in ("range", "equality"):
            for _ in range(PREDICATES):
                value = rng.choice(sample)
                predicate = f"{column} <= {value}" if kind == "range" else f"{column} = {value}"
                true = spark.sql(f"select count(*) from analytics.estimation_ours where {predicate}").collect()[0][0]
                ours = ours_range([b[:3] for b in histogram], value) if kind == "range" else ours_equality(histogram, top, value)
                errors[kind]["ours"].append(q_error(ours, true))
                errors[kind]["ours_hybrid"].append(q_error(hybrid_estimate(hybrid_column, kind, value), true))
                errors[kind]["spark"].append(q_error(spark_estimate(spark, "analytics.estimation_spark", predicate), true))
        report[column] = {kind: {who: summary(values) for who, values in by_who.items()} for kind, by_who in errors.items()}
    spark.conf.set("spark.sql.cbo.enabled", "false")
    return {"rows": rows, "predicates_per_kind": PREDICATES, "date": time.strftime("%Y-%m-%d"), "spark": spark.version, "q_error": report}


def markdown_table(document: dict) -> str:
    lines = [f"{document['rows']:,} rows, {document['predicates_per_kind']} random predicates per column and kind (constants "
             "drawn from the data). q-error = max(estimate/true, true/estimate); 1 is exact. Ours: our 254-bin equi-height "
             "histograms and top values; hybrid: the package's hybrid histograms (common values apart, "
             "`column_histograms_hybrid`). Spark: its CBO's Filter estimate with its own 254-bin histograms.", "",
             "| column | predicate | ours p50 | ours p95 | ours max | hybrid p50 | hybrid p95 | hybrid max | Spark p50 | Spark p95 | Spark max |",
             "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for column, kinds in document["q_error"].items():
        for kind, by_who in kinds.items():
            cells = " | ".join(f"{by_who[who]['p50']:.2f} | {by_who[who]['p95']:.2f} | {by_who[who]['max']:.2f}"
                               for who in ("ours", "ours_hybrid", "spark"))
            lines.append(f"| {column} | {'x <= c' if kind == 'range' else 'x = v'} | {cells} |")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--scale", type=float, default=1.0)
    parser.add_argument("--out", type=Path, default=ROOT / "bench" / "out")
    options = parser.parse_args()
    HOME.mkdir(parents=True, exist_ok=True)
    options.out.mkdir(parents=True, exist_ok=True)
    spark = new_spark_session(HOME, **{"spark.driver.memory": "4g"})
    assert run_dbt("deps").success
    document = measure(spark, int(1_000_000 * options.scale))
    (options.out / "estimation.json").write_text(json.dumps(document, indent=2))
    text = (f"# Estimation quality\n\nGenerated by `make estimation SCALE={options.scale:g}` on {document['date']} "
            f"(Spark {document['spark']}); `make bench` includes the same measurement.\n\n" + markdown_table(document) + "\n")
    (ROOT / "ESTIMATION.md").write_text(text)
    print(text)


if __name__ == "__main__":
    main()
