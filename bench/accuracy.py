"""How good the numbers are, ours against Spark's and against exact counts.

- NDV: relative error |estimate - exact| / exact of our distinct counts (HLL) and of Spark's
  ANALYZE (its HyperLogLog++, relative standard error 5%), per column.
- Histogram bins: each bin should hold rows/bins rows; the error of a bin is
  |exact rows in (lower, upper]| - rows/bins| / (rows/bins), ours and Spark's (254 bins each).
- Top values: recall of the exact top k among our top k, over the heavy hitters (see
  top_value_recall).
"""

from __future__ import annotations

import re
import statistics


def summary(values: list[float]) -> dict:
    if not values:
        return {}
    ordered = sorted(values)
    return {"p50": statistics.median(ordered), "p95": ordered[int(0.95 * (len(ordered) - 1))], "max": ordered[-1], "n": len(ordered)}


def quote(name: str) -> str:
    return "`" + name.replace("`", "``") + "`"


def exact_ndv(spark, table: str, columns: list[str]) -> dict[str, int]:
    row = spark.sql(f"select {', '.join(f'count(distinct {quote(c)})' for c in columns)} from {table}").collect()[0]
    return dict(zip(columns, row))


def ours(spark, table: str, view: str, column: str | None = None, order: str = "") -> list:
    schema, name = table.split(".")
    where = f"table_schema = '{schema}' and table_name = '{name}' and partition_spec = ''"
    where += f" and column_name = '{column}'" if column else ""
    return spark.sql(f"select * from analytics_stats.{view} where {where} {order}").collect()


def spark_column_stats(spark, table: str, column: str) -> dict:
    """Spark's catalog statistics of one column (DESCRIBE EXTENDED), histogram bins included."""
    found = {r[0]: r[1] for r in spark.sql(f"describe extended {table} {quote(column)}").collect()}
    bins = []
    for key, value in found.items():
        if key.startswith("bin_"):
            lower, upper = re.search(r"lower_bound: ([^,]+), upper_bound: ([^,]+)", value).groups()
            bins.append((lower, upper))
    return {"distinct_count": None if found.get("distinct_count") in (None, "NULL") else int(found["distinct_count"]), "bins": bins}


def ndv_errors(spark, table: str, columns: list[str]) -> dict:
    exact = exact_ndv(spark, table, columns)
    mine = {r["column_name"]: r["distinct_count"] for r in ours(spark, table, "column_statistics")}
    result = {"ours": [], "spark": []}
    for column in columns:
        if not exact[column]:
            continue
        theirs = spark_column_stats(spark, table, column)["distinct_count"]
        if mine.get(column) is not None:
            result["ours"].append(abs(mine[column] - exact[column]) / exact[column])
        if theirs is not None:
            result["spark"].append(abs(theirs - exact[column]) / exact[column])
    return result


def bound_sql(bound: str, cast: str) -> str:
    """A bound as a value of the column's type (Spark's catalog keeps date bounds as day numbers)."""
    numeric = re.fullmatch(r"-?[0-9.]+(E-?[0-9]+)?", bound)
    if cast == "date" and numeric:
        return f"date_from_unix_date(cast(cast('{bound}' as double) as int))"
    if numeric:  # Spark's bounds of integers are doubles ('394.0'), which ANSI casts refuse as text
        return f"cast(cast('{bound}' as double) as {cast})"
    return f"cast('{bound}' as {cast})"


def bin_errors(spark, table: str, column: str, bounds: list[tuple[str, str]], cast: str) -> list[float]:
    """Relative error of each bin's rows against rows/bins; bounds as text, compared as `cast`."""
    if not bounds:
        return []
    counts = ", ".join(f"count_if({quote(column)} <= {bound_sql(upper, cast)})" for _, upper in bounds)
    row = spark.sql(f"select count({quote(column)}), count_if({quote(column)} < {bound_sql(bounds[0][0], cast)}), {counts} "
                    f"from {table}").collect()[0]
    total, below = row[0], row[1]
    cumulative = [below] + list(row[2:])
    expected = total / len(bounds)
    return [abs((cumulative[i + 1] - cumulative[i]) - expected) / expected for i in range(len(bounds))]


def histogram_errors(spark, table: str, column: str, cast: str) -> dict:
    mine = [(str(r["lower_bound"]), str(r["upper_bound"])) for r in ours(spark, table, "column_histograms", column, "order by bin")]
    theirs = spark_column_stats(spark, table, column)["bins"]
    return {"ours": bin_errors(spark, table, column, mine, cast), "spark": bin_errors(spark, table, column, theirs, cast)}


def top_value_recall(spark, table: str, column: str, k: int = 20, tracked: int = 2048) -> float | None:
    """Over the exact top k that are heavy hitters: above the (k+1)-th value's count and above
    rows/tracked, the count a top-k sketch tracking `tracked` items is guaranteed to tell apart
    (a column without such values, e.g. uniform, has no recall to measure: None)."""
    exact = spark.sql(f"select cast({quote(column)} as string) as v, count(*) as n from {table} where {quote(column)} is not null "
                      f"group by 1 order by n desc limit {k + 1}").collect()
    if len(exact) <= 1:
        return None
    rows = spark.sql(f"select count({quote(column)}) from {table}").collect()[0][0]
    cut = max(exact[k]["n"] if len(exact) > k else 0, rows / tracked)
    wanted = {r["v"] for r in exact[:k] if r["n"] > cut}
    if not wanted:
        return None
    found = {r["value"] for r in ours(spark, table, "column_top_values", column) if r["rank"] <= k}
    return len(wanted & found) / len(wanted)
