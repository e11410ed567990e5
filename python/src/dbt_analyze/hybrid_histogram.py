"""Hybrid histograms (PostgreSQL's): the most common values listed apart, equi-height bins over the rest.

Built from statistics already collected, without a rescan: a column's equi-height histogram (its
bounds sample the distribution at every 1/bins of the rows), its top values with their
frequencies, its non-null rows and distinct count. With the common values apart, a rare value's
bin is no longer inflated by a heavy neighbour, which is what equality estimates need.

>>> bins = [(0.0, 1.0, 50, 2), (1.0, 1.0, 50, 1), (1.0, 9.0, 50, 8), (9.0, 10.0, 50, 2)]
>>> common = most_common_values([(1.0, 80)], non_null_rows=200, distinct_count=12, limit=20)
>>> common
[(1.0, 80)]
>>> [(round(low, 2), round(high, 2), rows) for low, high, rows, _ in hybrid_histogram(bins, common, 2)]
[(0.0, 7.4, 60.0), (7.4, 10.0, 60.0)]
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from itertools import accumulate
from typing import Callable, Optional, Sequence

Bin = tuple[float, float, float, float]  # lower, upper, rows, distinct values


def most_common_values(top_values: Sequence[tuple[float, float]], non_null_rows: float, distinct_count: float,
                       limit: Optional[int], num_bins: int = 254) -> list[tuple[float, float]]:
    """PostgreSQL's choice: values at least 1.25 times as common as an average value (or holding a
    bin's share of the rows), seen more than once, up to ``limit`` (None: all); most common first."""
    if not non_null_rows or not distinct_count:
        return []
    threshold = min(1.25 * non_null_rows / distinct_count, non_null_rows / num_bins)
    chosen = [(value, rows) for value, rows in top_values if rows > 1 and rows >= threshold]
    return sorted(chosen, key=lambda item: -item[1])[:limit]


def hybrid_histogram(bins: Sequence[Bin], common: Sequence[tuple[float, float]], num_bins: int) -> list[Bin]:
    """Equi-height bins over the rows that are not common values.

    ``bins``: the column's equi-height histogram in order; ``common``: (value, rows) listed apart.
    Each old bin's rows, less the share of its distinct values that are common, give the rest's
    cumulative distribution at the old bounds; new bounds are cut every 1/num_bins of it
    (linearly between old bounds). A new bin's distinct values are the old bins' (less their
    common values), shared out by the overlap of value ranges.
    """
    if not bins:
        return []
    remaining = sum(bin_[2] for bin_ in bins) - sum(rows for _, rows in common)
    points, rest, rest_distinct = rest_distribution(bins, common)
    num_bins = int(min(num_bins, max(sum(rest_distinct), 1)))
    if remaining <= 0 or num_bins < 1:
        return []
    # the rest starts where its distribution first rises (common values below are not in the bins)
    bounds = [points[max(i for i in range(len(rest)) if rest[i] == 0)]]
    for k in range(1, num_bins):
        target = remaining * k / num_bins
        i = next(i for i in range(1, len(rest)) if rest[i] >= target)
        low, high = rest[i - 1], rest[i]
        share = min(max((target - low) / (high - low), 0.0), 1.0) if high > low else 1.0
        bounds.append(points[i - 1] + share * (points[i] - points[i - 1]))
    bounds.append(points[-1])
    result = []
    for low, high in zip(bounds, bounds[1:]):
        distinct = 0.0
        for (lower, upper, _, _), count in zip(bins, rest_distinct):
            if upper == lower:
                distinct += count if low <= lower <= high and (lower > low or low == bounds[0]) else 0
            else:
                overlap = max(0.0, min(high, upper) - max(low, lower))
                distinct += count * overlap / (upper - lower)
        rows = remaining / num_bins
        result.append((low, high, rows, max(1.0, min(round(distinct), rows))))
    return result


def rest_distribution(
    bins: Sequence[Bin], common: Sequence[tuple[float, float]]
) -> tuple[list[float], list[float], list[float]]:
    """Where the rows that are not common values lie: the histogram's bounds, the rest's rows
    cumulated up to each bound, and each bin's distinct values less its common ones.

    A bound is the value at a rank: the bins' rows up to it, less the common values' rows up to it,
    are the rest's rows up to it. Where the bound is a common value, the cut falls somewhere among
    that value's rows, which only bounds the rest up to it (between the bins' rows up to it less
    the common rows up to and including it, and less those below it). There the rest between the
    bounds around it is shared out by the bins' other distinct values, within those limits. So a
    rare value in a bin with a heavy one does not get the heavy one's rows. A bin's rows are
    nominal (rows/bins) and its bounds approximate quantiles; where the rest would fall, it is held
    level.

    >>> rest_distribution([(0.0, 2.0, 50, 2), (2.0, 2.0, 50, 1), (2.0, 10.0, 50, 8)], [(2.0, 75)])
    ([0.0, 2.0, 2.0, 10.0], [0.0, 25.0, 25.0, 75.0], [1, 0, 8])
    >>> rest_distribution([(0.0, 10.0, 100, 10), (10.0, 20.0, 100, 10)], [(5.0, 80)])[1]  # 5's rows out of its bin
    [0.0, 20.0, 120.0]
    """
    around = _bins_around_value(bins)
    inside = [0] * len(bins)
    for value, _ in common:
        for index in around(value):
            lower, upper = bins[index][0], bins[index][1]
            if (value == lower if lower == upper else lower < value <= upper) or (index == 0 and value == lower < upper):
                inside[index] += 1
    rest_distinct = [max((bin_[3] or 0) - taken_out, 0) for bin_, taken_out in zip(bins, inside)]
    points = [bins[0][0]] + [bin_[1] for bin_ in bins]
    listed = sorted(common)
    listed_values = [value for value, _ in listed]
    listed_up_to = [0.0, *accumulate(rows for _, rows in listed)]
    remaining = max(sum(bin_[2] for bin_ in bins) - listed_up_to[-1], 0.0)
    # the rest up to each bound: (least, most); a bound that is not a common value is known
    limits = [(0.0, 0.0)]
    bins_up_to = 0.0
    for bin_ in bins[:-1]:
        bins_up_to += bin_[2]
        below, through = bisect_left(listed_values, bin_[1]), bisect_right(listed_values, bin_[1])
        limits.append((bins_up_to - listed_up_to[through], bins_up_to - listed_up_to[below]))
    limits.append((remaining, remaining))
    # the bounds at one common value cut its rows at several ranks: the rest up to it meets them all
    for first, last in _runs(points, limits):
        least = max(low for low, _ in limits[first:last + 1])
        most = min(high for _, high in limits[first:last + 1])
        limits[first:last + 1] = [(least, most) if least <= most else ((least + most) / 2,) * 2] * (last - first + 1)
    limits = [(min(max(low, 0.0), remaining), min(max(high, 0.0), remaining)) for low, high in limits]
    known = [index for index, (low, high) in enumerate(limits) if low == high]
    rest = [limits[index][0] for index in range(len(points))]
    for start, stop in zip(known, known[1:]):
        weights = [float(rest_distinct[k]) for k in range(start, stop)]
        if not sum(weights):
            weights = [1.0 if bins[k][0] < bins[k][1] else 0.0 for k in range(start, stop)]
        if not sum(weights):
            weights = [1.0] * (stop - start)
        per_weight = (rest[stop] - rest[start]) / sum(weights)
        for k, weight in zip(range(start, stop - 1), weights):
            rest[k + 1] = min(max(rest[k] + per_weight * weight, limits[k + 1][0]), limits[k + 1][1])
    from_left = list(accumulate(rest, max))
    from_right = list(accumulate(reversed(rest), min))[::-1]
    return points, [(a + b) / 2 for a, b in zip(from_left, from_right)], rest_distinct


def _runs(points: Sequence[float], limits: Sequence[tuple[float, float]]) -> list[tuple[int, int]]:
    """(first, last) index of each run of equal bounds that only limit the rest (common values)."""
    runs: list[tuple[int, int]] = []
    for index, (low, high) in enumerate(limits):
        if low == high:
            continue
        if runs and runs[-1][1] == index - 1 and points[index] == points[runs[-1][0]]:
            runs[-1] = (runs[-1][0], index)
        else:
            runs.append((index, index))
    return runs


def _bins_around_value(bins: Sequence[Bin]) -> Callable[[float], Sequence[int]]:
    """value -> the indexes of the bins with lower <= value <= upper, in order. A histogram's bounds
    rise bin by bin, so those bins are one run, found by bisection: thousands of common values are
    not each checked against every bin. Bins out of order are each looked at.

    >>> around = _bins_around_value([(0.0, 2.0, 50, 2), (2.0, 2.0, 50, 1), (2.0, 10.0, 50, 8)])
    >>> list(around(2.0)), list(around(5.0)), list(around(11.0))
    ([0, 1, 2], [2], [])
    """
    lowers, uppers = [bin_[0] for bin_ in bins], [bin_[1] for bin_ in bins]
    if all(a <= b for a, b in zip(lowers, lowers[1:])) and all(a <= b for a, b in zip(uppers, uppers[1:])):
        return lambda value: range(bisect_left(uppers, value), bisect_right(lowers, value))
    return lambda value: [i for i, (lower, upper) in enumerate(zip(lowers, uppers)) if lower <= value <= upper]


def rest_rows_up_to(points: list[float], rest: list[float], x: float, inclusive: bool = True,
                    listed: Sequence[float] = (), step: float = 0.0) -> float:
    """The rest's rows at or below ``x`` (strictly below when not ``inclusive``: a bin of the
    single value x then does not count), linear between bounds. With ``step`` (the distance between
    neighbouring values, :func:`spark_types.value_step`) and the common values ``listed`` in order,
    linear over the values a bin can hold that are not listed: each value v stands for
    (v - step, v], and a common value's interval holds none of the rest.

    >>> points, rest = [0.0, 2.0, 2.0, 10.0], [0.0, 25.0, 25.0, 75.0]
    >>> rest_rows_up_to(points, rest, 6.0), rest_rows_up_to(points, rest, 10.0), rest_rows_up_to(points, rest, -1.0)
    (50.0, 75.0, 0.0)
    >>> rest_rows_up_to(points, rest, 6.0, listed=[3.0, 4.0, 5.0, 6.0], step=1.0)  # 3..6 listed: no rest in (2, 6]
    25.0
    """
    i = (bisect_right(points, x) if inclusive else bisect_left(points, x)) - 1
    if i < 0:
        return 0.0
    if i >= len(points) - 1:
        return rest[-1]
    low, high = points[i], points[i + 1]
    if high <= low:
        return rest[i + 1]
    share = (x - low) / (high - low)
    if step and listed:
        def free(end: float) -> float:  # (low, end] less the listed values' intervals in it
            return end - low - step * (bisect_right(listed, end) - bisect_right(listed, low))
        if free(high) > 0:
            share = min(max(free(x) / free(high), 0.0), 1.0)
    return rest[i] + (rest[i + 1] - rest[i]) * share


def hybrid_rows(tables: list[dict], columns: list[dict], histograms: list[dict], top_values: list[dict],
                limit: Optional[int] = None) -> list[tuple]:
    """Rows of column_histograms_hybrid from the current table-level statistics rows (dicts of
    table_statistics, column_statistics, column_histograms in bin order, column_top_values)."""
    from collections import defaultdict

    from dbt_analyze.column_stats import as_number, format_value, from_number, parse_value

    def key(row: dict) -> tuple:
        return row["table_schema"], row["table_name"], row["column_name"]

    rows_of = {(t["table_schema"], t["table_name"]): t["row_count"] for t in tables}
    by_column = defaultdict(list)
    for row in histograms:
        by_column[key(row)].append(row)
    tops = defaultdict(list)
    for row in top_values:
        tops[key(row)].append(row)
    out = []
    for column in columns:
        found = by_column.get(key(column))
        table_rows = rows_of.get((column["table_schema"], column["table_name"]))
        if not found or table_rows is None:
            continue
        data_type = column["data_type"]
        number = lambda text: as_number(parse_value(text, data_type))  # noqa: E731
        text = lambda value: format_value(from_number(value, data_type))  # noqa: E731
        bins = [(number(b["lower_bound"]), number(b["upper_bound"]), float(b["row_count"]),
                 float(b["distinct_count"] or 0)) for b in found]
        if any(b[0] is None or b[1] is None for b in bins):
            continue
        candidates = [(number(t["value"]), float(t["frequency"])) for t in tops.get(key(column), [])
                      if number(t["value"]) is not None]
        common = most_common_values(candidates, table_rows - (column["null_count"] or 0), column["distinct_count"] or 0,
                                    limit, len(bins))
        prefix = (column["table_schema"], column["table_name"], "", column["column_name"])
        try:
            found_rows = [prefix + ("mcv", rank, text(value), text(value), rows, 1)
                          for rank, (value, rows) in enumerate(common, start=1)]
            cut = hybrid_histogram(bins, common, len(bins))
            found_rows += [prefix + ("bin", index, text(low), text(high), rows, int(distinct))
                           for index, (low, high, rows, distinct) in enumerate(cut, start=1)]
        except (ValueError, OverflowError, ArithmeticError):
            continue  # bounds beyond Python's dates or decimals (year 1 or 9999 edges): no hybrid for that column
        out.extend(found_rows)
    return out
