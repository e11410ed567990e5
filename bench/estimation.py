"""Estimation quality: row-count estimates of range and equality predicates, ours against Spark's.

    make estimation [SCALE=1]     # SCALE x 1M rows; writes ESTIMATION.md and bench/out/estimation.json

On one table with a uniform, a skewed (log-uniform: many small values, a long tail) and a heavily
duplicated (20 values) column, for random predicates `x <= c` and `x = v` (constants drawn from the
data, so no predicate is empty):
- ours: from our equi-height histogram (rows of the bins below c, plus the covered share of the
  bin holding c) and, for equality, our top values (their counts) or else the rows of v's bins
  divided by those bins' distinct counts;
- ours, hybrid: the same from the hybrid histogram (common values apart, bins over the rest);
- ours in Spark's CBO: the CBO's Filter estimate (EXPLAIN COST) with our statistics published to
  Spark's catalog (`publish: true`): the same estimator as Spark's, our histograms;
- Spark's: the CBO's Filter estimate with the statistics of Spark's `ANALYZE ... FOR ALL COLUMNS`
  and `spark.sql.statistics.histogram.enabled=true`, on a copy.
q-error = max(estimate / true, true / estimate), estimates floored at 1 row. The CBO rounds its
row counts up to whole rows; ours are not rounded.

Equality has a floor no histogram passes: on the uniform column a million rows on a million
integers put each value on Poisson(1) rows, so a value drawn from the data occurs 1, 2, 3 or 4
times with probabilities 0.37, 0.37, 0.18 and 0.06, and one estimate for all of a bin's values is
2x off for those occurring once or 4 times (43%), or further off for one of them. The report
gives, per column, the lowest p95 q-error any per-bin estimate reaches on our bins, computed from
the exact counts (`equality_floor`).
"""

from __future__ import annotations

import argparse
import bisect
import itertools
import json
import random
import re
import statistics
import sys
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "integration_tests" / "tests"))

from conftest import HOME, new_spark_session, run_dbt  # noqa: E402

COLUMNS = {
    "uniform": "cast(rand(11) * 1000000 as int)",
    "skewed": "cast(floor(pow(1000000, rand(12))) as int)",
    "duplicated": "cast(id % 20 as int)",
}
PREDICATES = 300
WHO = ("ours", "ours_hybrid", "ours_cbo", "spark")


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


def multiplicities(exact: dict[int, int], bins: list[tuple], top: dict[float, int]) -> tuple[list[Counter], int]:
    """Per bin of our histogram, how many values occur k times ({k: values}), from the exact
    counts; values among our top values apart (their rows are estimated exactly)."""
    uppers = [upper for _, upper, _, _ in bins]
    by_bin = [Counter() for _ in bins]
    exact_rows = 0
    for value, count in exact.items():
        if float(value) in top:
            exact_rows += count
        else:
            by_bin[min(bisect.bisect_left(uppers, float(value)), len(bins) - 1)][count] += 1
    return by_bin, exact_rows


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
    result = run_dbt("run-operation", "analyze_table", "--args",
                     json.dumps({"relation": "analytics.estimation_ours", "columns": "all", "full": True, "publish": True}))
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
    floors: dict[str, float] = {}
    for column in COLUMNS:
        hybrid_column = [r for r in hybrid if r[3] == column]
        histogram = [(float(r["lower_bound"]), float(r["upper_bound"]), float(r["row_count"]), int(r["distinct_count"]))
                     for r in spark.sql(f"""select * from analytics_stats.column_histograms where table_name = 'estimation_ours'
                                            and partition_spec = '' and column_name = '{column}' order by bin""").collect()]
        top = {float(r["value"]): int(r["frequency"]) for r in spark.sql(
            f"""select * from analytics_stats.column_top_values where table_name = 'estimation_ours'
                and partition_spec = '' and column_name = '{column}'""").collect()}
        # the exact count of every value, in one pass: the true rows of both predicate kinds and the floor
        exact = dict(spark.sql(f"select {column}, count(*) from analytics.estimation_ours group by 1").collect())
        values = sorted(exact)
        rows_up_to = list(itertools.accumulate(exact[v] for v in values))
        floors[column] = equality_floor(*multiplicities(exact, histogram, top))
        sample = [r[0] for r in spark.sql(f"select {column} from analytics.estimation_ours tablesample (1 percent) repeatable (7)").collect()]
        constants = [rng.choice(sample) for _ in range(PREDICATES)]
        errors = {kind: {who: [] for who in WHO} for kind in ("range", "equality")}
        for kind in ("range", "equality"):
            for value in constants:
                predicate = f"{column} <= {value}" if kind == "range" else f"{column} = {value}"
                true = rows_up_to[bisect.bisect_right(values, value) - 1] if kind == "range" else exact[value]
                ours = ours_range([b[:3] for b in histogram], value) if kind == "range" else ours_equality(histogram, top, value)
                errors[kind]["ours"].append(q_error(ours, true))
                errors[kind]["ours_hybrid"].append(q_error(hybrid_estimate(hybrid_column, kind, value), true))
                errors[kind]["ours_cbo"].append(q_error(spark_estimate(spark, "analytics.estimation_ours", predicate), true))
                errors[kind]["spark"].append(q_error(spark_estimate(spark, "analytics.estimation_spark", predicate), true))
        report[column] = {kind: {who: summary(values) for who, values in by_who.items()} for kind, by_who in errors.items()}
    spark.conf.set("spark.sql.cbo.enabled", "false")
    return {"rows": rows, "predicates_per_kind": PREDICATES, "date": time.strftime("%Y-%m-%d"), "spark": spark.version,
            "q_error": report, "equality_floor": floors}


def equality_floor(bins: list[Counter], exact_rows: int, share: float = 0.95) -> float:
    """The lowest p95 q-error that any estimate giving one number to all values of a bin reaches
    for `x = v`, v drawn from the rows. `bins`: per bin, how many of its values occur k times
    ({k: values}); `exact_rows`: rows whose count is known exactly (top values). A value occurring
    k times is drawn with weight k; with q-error q a bin's one estimate covers the counts of one
    window [a, a q^2]; the floor is the smallest q whose best windows cover `share` of the rows.

    >>> # each value on Poisson(1) rows: drawn, it occurs 1, 2, 3, 4 times w.p. .37, .37, .18, .06
    >>> round(equality_floor([Counter({1: 3679, 2: 1839, 3: 613, 4: 153, 5: 31, 6: 5})], 0), 2)
    2.0
    """
    total = exact_rows + sum(k * n for counts in bins for k, n in counts.items())

    def covered(ratio: float) -> float:
        rows = exact_rows
        for counts in bins:
            ks = sorted(counts)
            rows += max((sum(k * counts[k] for k in ks if a <= k <= a * ratio) for a in ks), default=0)
        return rows / total

    low, high = 1.0, 1e4  # squared q-error
    for _ in range(40):
        middle = (low * high) ** 0.5
        low, high = (low, middle) if covered(middle) >= share else (middle, high)
    return high ** 0.5


def markdown_table(document: dict) -> str:
    lines = [f"{document['rows']:,} rows, {document['predicates_per_kind']} random predicates per column and kind (constants "
             "drawn from the data). q-error = max(estimate/true, true/estimate); 1 is exact. Ours: our 254-bin equi-height "
             "histograms and top values; hybrid: the package's hybrid histograms (common values apart, "
             "`column_histograms_hybrid`); ours in the CBO: Spark's own Filter estimate with our statistics published to its "
             "catalog. Spark: its CBO's Filter estimate with its own 254-bin histograms. The CBO rounds row counts up to "
             "whole rows.", "",
             "| column | predicate | ours p50 | ours p95 | ours max | hybrid p50 | hybrid p95 | hybrid max "
             "| ours in the CBO p50 | ours in the CBO p95 | ours in the CBO max | Spark p50 | Spark p95 | Spark max |",
             "|---|---|" + "---:|" * 12]
    for column, kinds in document["q_error"].items():
        for kind, by_who in kinds.items():
            cells = " | ".join(f"{by_who[who]['p50']:.2f} | {by_who[who]['p95']:.2f} | {by_who[who]['max']:.2f}" for who in WHO)
            lines.append(f"| {column} | {'x <= c' if kind == 'range' else 'x = v'} | {cells} |")
    floors = document.get("equality_floor") or {}
    if floors:
        lines += ["", "Floor for `x = v`: the lowest p95 q-error that any estimate giving one number to all the values of a "
                      "bin (our bins; our top values exact) reaches, from the exact counts: "
                  + ", ".join(f"{column} {floor:.2f}" for column, floor in floors.items()) + "."]
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
