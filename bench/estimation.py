"""Estimation quality: row-count estimates of range and equality predicates, ours against Spark's.

    make estimation [SCALE=1]     # SCALE x 1M rows; writes ESTIMATION.md and bench/out/estimation.json

On one table of 1M rows with seven integer columns:
- uniform: 10,000 values, each on about 100 rows;
- skewed: log-uniform (Zipf-like, P(x) ~ 1/x) over 1..10,000: a few values hold most rows, the
  rarest about 11;
- uniform_sparse and skewed_sparse: the same shapes over 1..1,000,000, so that most values occur
  once or twice (see the floor below);
- duplicated: 20 values;
- zipf_scattered: Zipf(1.1) frequencies over 100,000 ranks, the ranks scattered over 0..1,000,002,
  so heavy values sit inside bins of rare ones;
- heavy_tail: 60% of the rows on 200 scattered values (0.3% each), the rest over a million values:
  heavy values far beyond the top 20.
Predicates, PREDICATES of each class per column: x = v with v drawn from the rows (by frequency)
and from the distinct values (uniformly); a <= x <= b as wide as 0.1%, 5% and 50% of [min, max],
a at random; x <= c with c drawn from the rows.
Estimates:
- ours: the package's estimates (`dbt_analyze.selectivity`) from our equi-height histogram and
  most common values (column_top_values) after the table's second run (its first run's sketches
  cut the lists of some columns, which track more items from then on): for ranges, those in the
  range by their counts and the other rows from the bins with them taken out (linear within a
  bin over the integers that are not listed); for equality, v's count if it is listed, else the rest's rows over the rest's distinct
  values of the bins within 1% of the rows around v;
- ours, hybrid: the same from the hybrid histogram (common values apart, bins over the rest);
- ours in Spark's CBO: the CBO's Filter estimate (EXPLAIN COST) with our statistics published to
  Spark's catalog (`publish: true`): the same estimator as Spark's, our histograms;
- Spark's: the CBO's Filter estimate with the statistics of Spark's `ANALYZE ... FOR ALL COLUMNS`
  and `spark.sql.statistics.histogram.enabled=true`, on a copy.
q-error = max(estimate / true, true / estimate), estimates floored at 1 row. Every estimate is in
whole rows, rounded up: the CBO's as it rounds them, ours as the package's estimator does
(`dbt_analyze.selectivity.rows_kept`).

Equality has a floor that no histogram passes: whatever one number a bin gives all its values,
the values' own counts scatter around it. On uniform_sparse a million rows on a million integers
put each value on Poisson(1) rows, so a value drawn from the data occurs 1, 2, 3 or 4 times with
probabilities 0.37, 0.37, 0.18 and 0.06: one estimate for all of them is 2x off for 43% of the
predicates. The report gives, per column, the lowest p95 q-error any per-bin estimate reaches on
our bins, computed from the exact counts (`equality_floor`).
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
from typing import Optional

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "integration_tests" / "tests"))
sys.path.insert(0, str(ROOT / "bench"))

import datasets  # noqa: E402
from conftest import run_dbt  # noqa: E402
from dbt_analyze.selectivity import histogram_equality_share, histogram_range_share, rows_kept  # noqa: E402

COLUMNS = {
    "uniform": "cast(rand(13) * 10000 as int)",
    "skewed": "cast(floor(pow(10000, rand(14))) as int)",
    "uniform_sparse": "cast(rand(11) * 1000000 as int)",
    "skewed_sparse": "cast(floor(pow(1000000, rand(12))) as int)",
    "duplicated": "cast(id % 20 as int)",
    # Zipf(1.1) frequencies over 100,000 ranks, the ranks scattered over 0..1,000,002: heavy values
    # sit inside bins of rare ones
    "zipf_scattered": "cast(pmod(cast(floor(pow(1 - rand(15) * (1 - pow(100000, -0.1)), -10)) as bigint) * 7919, 1000003) as int)",
    # 60% of the rows on 200 scattered values (0.3% each), the rest spread over a million: a heavy
    # tail far beyond the top 20
    "heavy_tail": "if(rand(16) < 0.6, cast(pmod(cast(floor(rand(17) * 200) as bigint) * 4999, 1000003) as int), "
                  "cast(rand(18) * 1000000 as int))",
}
# The goal is judged on the columns whose values repeat: on the sparse ones the floor
# (below) is above 1.5 for any histogram.
GOAL_COLUMNS = ("uniform", "skewed")
PREDICATES = 400
WHO = ("ours", "ours_hybrid", "ours_cbo", "spark")
# The classes of predicate: equality on values drawn from the rows (by frequency) and from the
# distinct values (uniformly), ranges a ≤ x ≤ b as wide as 0.1%, 5% and 50% of [min, max], and x ≤ c.
CLASSES = {"equality": "x = v, v by frequency", "equality_uniform": "x = v, v uniform",
           "range_0.1": "0.1% range", "range_5": "5% range", "range_50": "50% range", "range": "x <= c"}
# The heavy-tail goals: (class, statistic, at most)
CLASS_GOALS = [("equality", "p95", 2.0), ("equality", "max", 10.0), ("equality_uniform", "p50", 2.0),
               ("equality_uniform", "p95", 10.0), ("range_5", "p95", 1.1), ("range_50", "p95", 1.1)]


def q_error(estimate: float, true: float) -> float:
    estimate, true = max(estimate, 1.0), max(true, 1.0)
    return max(estimate / true, true / estimate)


def ours_range(bins: list[tuple[float, float, float, int]], top: dict[float, int], low: Optional[float],
               high: Optional[float]) -> float:
    """The package's estimate (dbt_analyze.selectivity) of low <= x <= high (None: unbounded): top
    values by their counts, the other rows from the histogram, linear within a bin over the values
    that are not top values (the columns are integers: value_step 1)."""
    total = sum(count for _, _, count, _ in bins)
    top_shares = [(value, count / total) for value, count in top.items()]
    return rows_kept(total, histogram_range_share(as_histogram(bins), top_shares, low, high, step=1.0))


def as_histogram(bins: list[tuple[float, float, float, int]]) -> list[dict]:
    return [{"lower": lower, "upper": upper, "row_count": count, "distinct_count": ndv} for lower, upper, count, ndv in bins]


def ours_equality(bins: list[tuple[float, float, float, int]], top: dict[float, int], v: float,
                  rest_bins: bool = False) -> float:
    """Top values by their counts, else the package's estimate from the histogram with the top
    values taken out of its bins (dbt_analyze.selectivity); ``rest_bins``: bins that already hold
    only the other values (a hybrid histogram's)."""
    if v in top:
        return top[v]
    total = sum(count for _, _, count, _ in bins)
    shares = None if rest_bins else [(value, count / total) for value, count in top.items()]
    share = histogram_equality_share(as_histogram(bins), v, shares)
    return rows_kept(total, share) if share is not None else 1.0


def hybrid_estimate(rows: list[tuple], kind: str, low: Optional[float], high: float) -> float:
    """From a hybrid histogram (column_histograms_hybrid rows): common values by their counts,
    the rest from its bins (interpolated for ranges; for equality as from our histogram)."""
    common = {float(r[6]): r[8] for r in rows if r[4] == "mcv"}
    bins = [(float(r[6]), float(r[7]), r[8], r[9]) for r in rows if r[4] == "bin"]
    if kind.startswith("equality"):
        return ours_equality(bins, common, high, rest_bins=True)
    listed = sum(n for value, n in common.items() if (low is None or value >= low) and value <= high)
    return listed + (ours_range(bins, {}, low, high) if bins else 0.0)


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


def measure(spark, rows: int, sample_rows: int | None = None) -> dict:
    """Both tables, both statistics, the q-errors per column and predicate kind; with
    `sample_rows`, ours with the distribution sketches fed a sample of about that many rows."""
    select = ", ".join(f"{expr} as {name}" for name, expr in COLUMNS.items())
    spark.sql("create database if not exists analytics")
    for table in ("estimation_ours", "estimation_spark"):
        spark.sql(f"drop table if exists analytics.{table}")
        spark.sql(f"create table analytics.{table} using parquet as select {select} from range({rows})")
    # Twice, as a table's post-hook runs on every build: the second run tracks more items for the
    # columns whose most common values the first run's sketches cut (dbt_analyze_top_k_tracked_max).
    for _ in range(2):
        result = run_dbt("run-operation", "analyze_table", "--args",
                         json.dumps({"relation": "analytics.estimation_ours", "columns": "all", "full": True, "publish": True}),
                         *(["--vars", json.dumps({"dbt_analyze_sketch_sample_rows": sample_rows})] if sample_rows else []))
        assert result.success, result.error
    tracked = {r[0]: r[1] for r in spark.sql("""select column_name, state_top_values_sketch.maxItemsTracked
        from analytics_stats.statistics_history where table_name = 'estimation_ours' and column_name <> ''
        and run_id = (select max(run_id) from analytics_stats.statistics_history where table_name = 'estimation_ours')""").collect()}
    spark.conf.set("spark.sql.statistics.histogram.enabled", "true")
    spark.sql("analyze table analytics.estimation_spark compute statistics for all columns")
    spark.conf.set("spark.sql.statistics.histogram.enabled", "false")
    spark.conf.set("spark.sql.cbo.enabled", "true")

    from dbt_analyze.hybrid_histogram import hybrid_rows

    def current(view: str) -> list[dict]:
        return [r.asDict() for r in spark.sql(f"""select * from analytics_stats.{view} where table_name = 'estimation_ours'
                                                  and partition_spec = ''""").collect()]

    hybrid = hybrid_rows(current("table_statistics"), current("column_statistics"),
                         sorted(current("column_histograms"), key=lambda r: r["bin"]), current("column_top_values"), None)
    rng = random.Random(7)
    report: dict[str, dict] = {}
    floors: dict[str, float] = {}
    sketches: dict[str, dict] = {}  # per column: histogram bounds' rank error, NDV error, the values the sketches saw
    pooled: dict[str, list[float]] = {who: [] for who in WHO}  # x = v and x <= c on the goal columns
    overall: dict[str, list[float]] = {who: [] for who in WHO}  # every predicate
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
        stored = spark.sql(f"""select distinct_count, sketch_values from analytics_stats.column_statistics
                               where table_name = 'estimation_ours' and partition_spec = '' and column_name = '{column}'""").collect()[0]
        # each bin's upper bound against the exact equi-height split: how far its rank lies outside
        # the ranks the bound's value spans
        total = rows_up_to[-1]
        outside = [max(0.0, (i + 1) / len(histogram) - rows_up_to[bisect.bisect_right(values, upper) - 1] / total,
                       (rows_up_to[bisect.bisect_left(values, upper) - 1] if bisect.bisect_left(values, upper) else 0) / total
                       - (i + 1) / len(histogram))
                   for i, (_, upper, _, _) in enumerate(histogram)]
        sketches[column] = {"bound_rank_error": max(outside), "ndv_error": abs(stored[0] - len(values)) / len(values),
                            "sketch_values": stored[1]}
        sample = [r[0] for r in spark.sql(f"select {column} from analytics.estimation_ours tablesample (1 percent) repeatable (7)").collect()]
        low_end, high_end = values[0], values[-1]

        def rows_at_most(c: float) -> int:
            index = bisect.bisect_right(values, c) - 1
            return rows_up_to[index] if index >= 0 else 0

        errors = {kind: {who: [] for who in WHO} for kind in CLASSES}
        for kind in CLASSES:
            for _ in range(PREDICATES):
                if kind.startswith("equality"):
                    value = rng.choice(sample) if kind == "equality" else rng.choice(values)
                    low, high, predicate = None, value, f"{column} = {value}"
                    true, ours = exact.get(value, 0), ours_equality(histogram, top, value)
                elif kind == "range":
                    low, high = None, rng.choice(sample)
                    predicate, true = f"{column} <= {high}", rows_at_most(high)
                    ours = ours_range(histogram, top, None, high)
                else:
                    width = round(float(kind.split("_")[1]) / 100 * (high_end - low_end))
                    low = rng.randint(low_end, max(high_end - width, low_end))
                    high = low + width
                    predicate, true = f"{column} between {low} and {high}", rows_at_most(high) - rows_at_most(low - 1)
                    ours = ours_range(histogram, top, low, high)
                errors[kind]["ours"].append(q_error(ours, true))
                errors[kind]["ours_hybrid"].append(q_error(hybrid_estimate(hybrid_column, kind, low, high), true))
                errors[kind]["ours_cbo"].append(q_error(spark_estimate(spark, "analytics.estimation_ours", predicate), true))
                errors[kind]["spark"].append(q_error(spark_estimate(spark, "analytics.estimation_spark", predicate), true))
        report[column] = {kind: {who: summary(values) for who, values in by_who.items()} for kind, by_who in errors.items()}
        for who in WHO:
            overall[who] += [q for by_who in errors.values() for q in by_who[who]]
        if column in GOAL_COLUMNS:
            for kind in ("range", "equality"):
                for who, values in errors[kind].items():
                    pooled[who] += values
    spark.conf.set("spark.sql.cbo.enabled", "false")
    return {"rows": rows, "predicates_per_kind": PREDICATES, "date": time.strftime("%Y-%m-%d"), "spark": spark.version,
            "q_error": report, "equality_floor": floors, "pooled": {who: summary(values) for who, values in pooled.items()},
            "overall": {who: summary(values) for who, values in overall.items()}, "top_k_tracked": tracked,
            "sample_rows": sample_rows, "sketches": sketches}


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
    lines = [f"{document['rows']:,} rows, {document['predicates_per_kind']} random predicates per column and class (see "
             "`bench/estimation.py`). q-error = max(estimate/true, true/estimate); 1 is exact. Ours: our 254-bin equi-height "
             "histograms and top values; hybrid: the package's hybrid histograms (common values apart, "
             "`column_histograms_hybrid`); ours in the CBO: Spark's own Filter estimate with our statistics published to its "
             "catalog. Spark: its CBO's Filter estimate with its own 254-bin histograms. Every estimate is in whole rows, "
             "rounded up, ours as Spark's CBO rounds its own. Ours are the statistics of the table's second run, "
             "whose top-k sketches track what its first run learned: "
             + ", ".join(f"{column} {items:,}" for column, items in sorted(document.get("top_k_tracked", {}).items()))
             + " items.", "",
             "| column | predicate | ours p50 | ours p95 | ours max | hybrid p50 | hybrid p95 | hybrid max "
             "| ours in the CBO p50 | ours in the CBO p95 | ours in the CBO max | Spark p50 | Spark p95 | Spark max |",
             "|---|---|" + "---:|" * 12]
    for column, kinds in document["q_error"].items():
        for kind, by_who in kinds.items():
            cells = " | ".join(f"{by_who[who]['p50']:.2f} | {by_who[who]['p95']:.2f} | {by_who[who]['max']:.2f}" for who in WHO)
            lines.append(f"| {column} | {CLASSES.get(kind, kind)} | {cells} |")
    floors = document.get("equality_floor") or {}
    if floors:
        lines += ["", "Floor for `x = v`: the lowest p95 q-error that any estimate giving one number to all the values of a "
                      "bin (our bins; our top values exact) reaches, from the exact counts: "
                  + ", ".join(f"{column} {floor:.2f}" for column, floor in floors.items()) + "."]
    return "\n".join(lines)


def goals_table(document: dict) -> str:
    """The issue's goal per goal column and predicate kind: our p95 q-error at most 1.5 and lower
    than Spark's; the sparse columns' equality floors say why no histogram meets it there."""
    lines = ["| column | predicate | ours p95 | Spark p95 | goal: ≤ 1.5 and below Spark's |", "|---|---|---:|---:|---|"]
    for column in GOAL_COLUMNS:
        for kind in ("range", "equality"):
            by_who = document["q_error"][column][kind]
            ours, spark = by_who["ours"]["p95"], by_who["spark"]["p95"]
            verdict = "met" if ours <= 1.5 and ours < spark else (
                "missed: above 1.5" if ours > 1.5 else f"missed: Spark's is lower ({ours:.4f} against {spark:.4f})")
            lines.append(f"| {column} | {'x <= c' if kind == 'range' else 'x = v'} | {ours:.3f} | {spark:.3f} | {verdict} |")
    pooled = document["pooled"]
    ours, spark = pooled["ours"]["p95"], pooled["spark"]["p95"]
    lines.append(f"| {' and '.join(GOAL_COLUMNS)} | all {2 * len(GOAL_COLUMNS) * document['predicates_per_kind']} of them | "
                 f"{ours:.3f} | {spark:.3f} | {'met' if ours <= 1.5 and ours < spark else 'missed'} |")
    return "\n".join(lines)


def class_goals_table(document: dict) -> str:
    """The heavy-tail goals over every column: per class the worst column against its bound, overall p95
    and max, and ours against Spark's CBO (p95) in each column and class."""
    lines = ["| class | statistic | goal: at most | ours, worst column | verdict |", "|---|---|---:|---|---|"]
    for kind, statistic, bound in CLASS_GOALS:
        column, value = max(((column, kinds[kind]["ours"][statistic]) for column, kinds in document["q_error"].items()),
                            key=lambda item: item[1])
        lines.append(f"| {CLASSES[kind]} | {statistic} | {bound:g} | {value:.2f} ({column}) | {'met' if value <= bound else 'missed'} |")
    overall = document["overall"]["ours"]
    for statistic, bound in (("p95", 2.0), ("max", 20.0)):
        lines.append(f"| every predicate | {statistic} | {bound:g} | {overall[statistic]:.2f} | "
                     f"{'met' if overall[statistic] <= bound else 'missed'} |")
    worse = [f"{column} {CLASSES[kind]} ({by_who['ours']['p95']:.2f} against {by_who['spark']['p95']:.2f})"
             for column, kinds in document["q_error"].items() for kind, by_who in kinds.items()
             if by_who["ours"]["p95"] > by_who["spark"]["p95"] * 1.001]
    lines += ["", "Ours worse than Spark's CBO at p95: " + ("; ".join(worse) if worse else "in no column and class") + "."]
    return "\n".join(lines)


def sketches_table(document: dict) -> str:
    """Per column: the values the distribution sketches saw, the histogram bounds' worst rank error
    against the exact equi-height split, and the NDV's relative error."""
    lines = ["| column | values the sketches saw | bounds' worst rank error | NDV error |", "|---|---:|---:|---:|"]
    for column, found in document.get("sketches", {}).items():
        lines.append(f"| {column} | {found['sketch_values']:,} | {100 * found['bound_rank_error']:.2f}% | "
                     f"{100 * found['ndv_error']:.2f}% |")
    return "\n".join(lines)


def write_report(document: dict, command: str, out: Path, name: str = "estimation") -> None:
    """bench/out/<name>.json and, for the default sketches, ESTIMATION.md (`make estimation` and
    `make bench` both write them); with a sample size, bench/out/<name>.md."""
    (out / f"{name}.json").write_text(json.dumps(document, indent=2))
    text = (f"# Estimation quality\n\nGenerated by `{command}` on {document['date']} (Spark {document['spark']}). "
            "The table's columns, the estimators and the floor are described in `bench/estimation.py`.\n\n"
            "## Goals\n\n" + goals_table(document) + "\n\n## Heavy tails\n\n" + class_goals_table(document)
            + "\n\n## Histograms and NDV\n\n" + sketches_table(document)
            + "\n\n## All columns\n\n" + markdown_table(document) + "\n")
    (ROOT / "ESTIMATION.md" if name == "estimation" else out / f"{name}.md").write_text(text)
    print(text)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--scale", type=float, default=1.0)
    parser.add_argument("--sample-rows", type=int, default=None,
                        help="dbt_analyze_sketch_sample_rows for our run: the report goes to bench/out/estimation_<n>.md")
    parser.add_argument("--predicates", type=int, default=PREDICATES, help="random predicates per column and class")
    parser.add_argument("--out", type=Path, default=ROOT / "bench" / "out")
    options = parser.parse_args()
    globals()["PREDICATES"] = options.predicates
    spark = datasets.bench_session(options.out)
    command = (f"make estimation SCALE={options.scale:g}" + (f" SAMPLE_ROWS={options.sample_rows}" if options.sample_rows else "")
               + (f" (--predicates {options.predicates})" if options.predicates != 400 else ""))
    write_report(measure(spark, int(1_000_000 * options.scale), options.sample_rows), command, options.out,
                 f"estimation_{options.sample_rows}" if options.sample_rows else "estimation")


if __name__ == "__main__":
    main()
