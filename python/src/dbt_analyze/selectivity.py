"""Selectivity: the share of a column's rows that a predicate keeps, from its statistics (top
values, equi-height histogram, min and max, distinct count). The estimator's filters and the
histograms published to Spark's catalog use it.

>>> stats = ColumnStats("int", 0.0, 100, 1, 100, 4, 4)
>>> equality_share(stats, 500), round(range_share("x", stats, 1, 50, True, True)[0], 2)
((0.0, 'high'), 0.49)
"""

from __future__ import annotations

import math
from typing import Any, Optional

from dbt_analyze.column_stats import ColumnStats, as_number, collation, collation_key, lowest_accuracy, parse_value
from dbt_analyze.hybrid_histogram import rest_distribution, rest_rows_up_to
from dbt_analyze.spark_types import value_step


def equality_share(stats: ColumnStats, value: Any) -> Optional[tuple[float, str]]:
    """The share of non-null rows equal to ``value``: from top values, else the histogram bin,
    else what the top values leave spread over the other distinct values."""
    key = collation_key(value, stats.data_type)
    for item in stats.top_values or []:
        if collation_key(parse_value(item["value"], stats.data_type), stats.data_type) == key:
            return item["share"], "high"
    # A collation's order is not Python's: min and max rule nothing out there.
    if stats.min is not None and stats.max is not None and not collation(stats.data_type):
        try:
            if value < stats.min or value > stats.max:
                return 0.0, "high"
        except TypeError:
            return None
    number = as_number(value)
    share = (histogram_equality_share(stats.histogram, number, _numeric_top_values(stats))
             if stats.histogram and number is not None else None)
    if share is not None:
        return share, "high"
    if stats.distinct_count:
        top = stats.top_values or []
        covered = sum(item["share"] for item in top)
        rest = max((stats.distinct_count or 0) - len(top), 1)
        return max(1 - covered, 0) / rest, "medium"
    return None


def _numeric_top_values(stats: ColumnStats) -> list[tuple[float, float]]:
    """The column's top values as (number, share of the rows), for the histograms' arithmetic."""
    top = [(as_number(parse_value(item["value"], stats.data_type)), item["share"]) for item in stats.top_values or []]
    return [item for item in top if item[0] is not None]


def range_share(column, stats: ColumnStats, low: Any, high: Any, include_low: bool, include_high: bool):
    """The share of rows within [low, high] from the histogram (interpolated within a bin), else
    from min and max assuming uniform values."""
    lo, hi = as_number(low), as_number(high)
    if (low is not None and lo is None) or (high is not None and hi is None):
        return None
    non_null = 1 - (stats.null_fraction or 0)
    narrowed_min = stats.min if low is None or (stats.min is not None and stats.min > low) else low
    narrowed_max = stats.max if high is None or (stats.max is not None and stats.max < high) else high
    if stats.histogram:
        share = histogram_range_share(stats.histogram, _numeric_top_values(stats), lo, hi, include_low, include_high,
                                      value_step(stats.data_type))
        distinct, level = 0.0, "high"
        for bin_ in stats.histogram:
            distinct += (bin_["distinct_count"] or 0) * _overlap(bin_["lower"], bin_["upper"], lo, hi)
    else:
        low_bound, high_bound = as_number(stats.min), as_number(stats.max)
        if low_bound is None or high_bound is None:
            return None
        share, level = _overlap(low_bound, high_bound, lo, hi), "medium"
        distinct = (stats.distinct_count or 0) * share
    if stats.distinct_count is not None:
        distinct = min(max(round(distinct), 1 if share > 0 else 0), stats.distinct_count)
    else:
        distinct = None
    return share * non_null, level, column, stats.replace(
        null_fraction=0.0, distinct_count=distinct, min=narrowed_min, max=narrowed_max, histogram=None, top_values=None)


# How far around a value an equality estimate looks, as a share of the rows (3 bins each side of
# 254). A bin's distinct count is itself an estimate (from the column's NDV and a quantile grid),
# and its bounds are KLL quantiles (k 16000: within 0.02% of the rows); the mean over the bins
# around the value evens out both (docs/decisions/kll-k.md).
EQUALITY_WINDOW = 0.01


def bins_around(bins: list, first: int, last: int) -> list:
    """The bins ``first`` to ``last`` and those within ``EQUALITY_WINDOW`` of the rows on either side."""
    reach = round(EQUALITY_WINDOW * len(bins))
    return bins[max(first - reach, 0):last + reach + 1]


def histogram_equality_share(histogram: list[dict], number: float,
                             top_values: Optional[list[tuple[float, float]]] = None) -> Optional[float]:
    """The share of a histogram's rows equal to ``number``, a value that is not one of the
    ``top_values`` (value, share of the rows): the rows over the distinct values of the bins that
    hold it and of the bins within ``EQUALITY_WINDOW`` (1% of the rows) on either side, with the
    top values' rows and values taken out of their bins (a rare value does not get a heavy
    neighbour's share). The mean over several bins evens out the errors of single bins' distinct
    counts and bounds. None when no bin holds the value.

    >>> bins = [{"lower": 10 * i, "upper": 10 * i + 10, "row_count": 100, "distinct_count": 10} for i in range(200)]
    >>> bins[50]["distinct_count"] = 20  # bounds that came out too wide: 100 rows over 20 values
    >>> histogram_equality_share(bins, 505) * 20_000  # rows: 5 bins, 500 rows over 60 values
    8.333333333333334
    >>> bins[50]["distinct_count"] = 10
    >>> round(histogram_equality_share(bins, 505, [(503, 0.004)]) * 20_000, 2)  # 80 rows of 503 out: 420 over 49
    8.57
    """
    holding = [i for i, bin_ in enumerate(histogram) if bin_["lower"] <= number <= bin_["upper"]]
    total = sum(bin_["row_count"] for bin_ in histogram)
    if not holding or not total:
        return None
    if not top_values:
        window = bins_around(histogram, holding[0], holding[-1])
        distinct = sum(max(bin_["distinct_count"] or 1, 1) for bin_ in window)
        return sum(bin_["row_count"] for bin_ in window) / total / distinct
    _, rest, rest_distinct = rest_distribution(
        [(bin_["lower"], bin_["upper"], bin_["row_count"], bin_["distinct_count"] or 0) for bin_ in histogram],
        [(value, share * total) for value, share in top_values])
    indexes = bins_around(list(range(len(histogram))), holding[0], holding[-1])
    rows = sum(rest[i + 1] - rest[i] for i in indexes)
    distinct = sum(rest_distinct[i] for i in indexes)
    return rows / total / max(distinct, 1)


def histogram_range_share(histogram: list[dict], top_values: list[tuple[float, float]], low: Optional[float],
                          high: Optional[float], include_low: bool = True, include_high: bool = True,
                          step: float = 0.0) -> float:
    """The share of a histogram's rows between ``low`` and ``high`` (None: unbounded): the top
    values (value, share of the rows) in the range by their own counts, the other rows from the
    histogram with the top values taken out of their bins, linear within a bin.

    A heavy value fills its bins: without its count, a bound just above it would get a share of
    the next bin's rows spread evenly over that bin's values.

    ``step``: the distance between neighbouring values of the column's type (``value_step``; 0 for
    floating point). Each value v then stands for (v - step, v]: ``x between 1 and 10`` on integers
    holds ten values, not the nine units from 1 to 10.

    >>> bins = [{"lower": 0, "upper": 1, "row_count": 50, "distinct_count": 2},
    ...         {"lower": 1, "upper": 1, "row_count": 50, "distinct_count": 1},
    ...         {"lower": 1, "upper": 9, "row_count": 50, "distinct_count": 8}]
    >>> round(histogram_range_share(bins, [(1, 0.6)], None, 1) * 150, 1)  # x <= 1: 90 rows of 1, 10 (the least) of 0
    100.0
    >>> bins = [{"lower": 1, "upper": 100, "row_count": 100, "distinct_count": 100}]
    >>> [round(histogram_range_share(bins, [], 1, 10, step=step) * 100, 1) for step in (0.0, 1.0)]
    [9.1, 10.0]
    """
    total = sum(bin_["row_count"] for bin_ in histogram)
    if not total:
        return 0.0
    common = [(value, share * total) for value, share in top_values]
    bins = [(bin_["lower"], bin_["upper"], bin_["row_count"], bin_["distinct_count"] or 0) for bin_ in histogram]
    if step:  # the first bin holds its lower bound's value too
        bins[0] = (bins[0][0] - step, *bins[0][1:])
        low = None if low is None else low - step if include_low else low
        high = None if high is None else high if include_high else high - step
        include_low, include_high = False, True
    points, rest, _ = rest_distribution(bins, common)
    listed = sorted(value for value, _ in common)
    up_to_low = rest_rows_up_to(points, rest, low, not include_low, listed, step) if low is not None else 0.0
    up_to_high = rest_rows_up_to(points, rest, high, include_high, listed, step) if high is not None else rest[-1]
    in_range = sum(rows for value, rows in common
                   if (low is None or value > low or (include_low and value == low))
                   and (high is None or value < high or (include_high and value == high)))
    return (max(up_to_high - up_to_low, 0.0) + in_range) / total


def _overlap(bin_low: float, bin_high: float, low: Optional[float], high: Optional[float]) -> float:
    """The share of [bin_low, bin_high] inside [low, high] (values spread evenly in the bin)."""
    start = bin_low if low is None else max(bin_low, low)
    end = bin_high if high is None else min(bin_high, high)
    if end < start:
        return 0.0
    if bin_high == bin_low:
        return 1.0
    return (end - start) / (bin_high - bin_low)


def rows_kept(rows: float, share: float) -> float:
    """The rows a filter keeps: whole rows, rounded up as Spark's CBO rounds its Filter estimate.
    A value's rows are a whole number: of a bin's values on 1 to 4 rows, 2 is the estimate that
    is at most 2x off for each (ESTIMATION.md).

    >>> rows_kept(1_000_000, 1.58e-6), rows_kept(10, 0.3), rows_kept(10, 0.0)
    (2, 3, 0)
    """
    return math.ceil(round(rows * share, 9))


def sampled(stats: ColumnStats, rows: float, selectivity: float) -> ColumnStats:
    """A column not in the filter after keeping ``selectivity`` of the rows at random: null
    fraction kept, distinct values that keep at least one row (each value holding rows/NDV rows)."""
    if stats.accuracy is None:
        return stats
    distinct = stats.distinct_count
    if distinct and rows:
        per_value = rows * (1 - (stats.null_fraction or 0)) / distinct
        distinct = distinct * (1 - (1 - selectivity) ** per_value)
    return stats.replace(distinct_count=distinct, histogram=None, top_values=None,
                         accuracy=lowest_accuracy(stats.accuracy, "medium" if selectivity < 1 else "accurate"))
