"""Greenplum's rules for merging partition statistics that carry no sketches: a reference, kept
beside its tests (test_merge.py), not part of the library, whose merges all run in SQL over
sketches (macros/merge/).

Statistics imported from elsewhere, or collected on a sample, come as plain numbers: row counts,
fractions, most-common-value lists and equi-height histogram bounds. These functions merge them
the way Greenplum's incremental ANALYZE merges leaf partitions into a root (with sketches the SQL
merge is used instead: HLL and KLL unions).

>>> merge_row_counts([10, 20])
30
>>> merge_weighted([(0.5, 10), (0.0, 30)])
0.125
>>> merge_histograms([([0.0, 1.0, 2.0], 100), ([2.0, 3.0, 4.0], 100)], 4)
[0.0, 1.0, 2.0, 3.0, 4.0]
"""

from __future__ import annotations

import heapq
from typing import Hashable, Iterable, Sequence


def merge_row_counts(row_counts: Iterable[int]) -> int:
    """Row counts add up."""
    return sum(row_counts)


def merge_weighted(values_and_rows: Iterable[tuple[float | None, int]]) -> float | None:
    """A row-weighted average (average width, null fraction); None values and empty parts skip."""
    total = weight = 0.0
    for value, rows in values_and_rows:
        if value is None or rows <= 0:
            continue
        total += value * rows
        weight += rows
    return total / weight if weight else None


def merge_most_common_values(
    lists: Sequence[tuple[dict[Hashable, float], int]],
    num_values: int,
    min_frequency: float = 0.0,
) -> tuple[dict[Hashable, float], dict[Hashable, float]]:
    """Merge most-common-value lists: each input is ({value: frequency}, row count).

    Frequencies are summed row-weighted over the merged row count. The ``num_values`` most common
    values whose merged frequency is at least ``min_frequency`` are kept, most common first; the
    others are returned apart (value -> frequency) so their rows can go to the histogram.

    >>> merge_most_common_values([({"a": 0.5, "b": 0.25}, 4), ({"a": 0.25, "c": 0.75}, 4)], 2)
    ({'a': 0.375, 'c': 0.375}, {'b': 0.125})
    """
    total = sum(rows for _, rows in lists)
    if total <= 0:
        return {}, {}
    counts: dict[Hashable, float] = {}
    for frequencies, rows in lists:
        for value, frequency in frequencies.items():
            counts[value] = counts.get(value, 0.0) + frequency * rows
    ranked = sorted(counts.items(), key=lambda item: -item[1])
    kept: dict[Hashable, float] = {}
    rest: dict[Hashable, float] = {}
    for value, count in ranked:
        frequency = count / total
        if len(kept) < num_values and frequency >= min_frequency:
            kept[value] = frequency
        else:
            rest[value] = frequency
    return kept, rest


def merge_histograms(histograms: list[tuple[list[float], int]], num_buckets: int) -> list[float]:
    """Merge equi-height histograms into one of ``num_buckets`` buckets.

    Each input is (bounds, row count); its ``len(bounds) - 1`` buckets hold rows/buckets rows each
    (a single bound is a histogram of one value). All partitions' bounds are swept in ascending
    order through a priority queue holding each partition's next bound; every time the rows swept
    reach another total/num_buckets, the current bound becomes a bound of the result. The first
    bound is the smallest input bound and the last the largest.
    """
    if num_buckets < 1:
        raise ValueError(f"num_buckets must be at least 1, got {num_buckets}")
    inputs = [(list(bounds) * 2 if len(bounds) == 1 else list(bounds), rows)
              for bounds, rows in histograms if bounds and rows > 0]
    if not inputs:
        return []
    for bounds, _ in inputs:
        if any(b > a for a, b in zip(bounds[1:], bounds)):
            raise ValueError(f"histogram bounds must be ascending: {bounds}")
    total = sum(rows for _, rows in inputs)
    per_bucket = total / num_buckets
    queue = [(bounds[0], index, 0) for index, (bounds, _) in enumerate(inputs)]
    heapq.heapify(queue)
    lowest, highest = queue[0][0], max(bounds[-1] for bounds, _ in inputs)
    merged = [lowest]
    swept = 0.0
    next_cut = per_bucket
    while queue:
        bound, index, position = heapq.heappop(queue)
        bounds, rows = inputs[index]
        if position > 0:
            swept += rows / (len(bounds) - 1)
        if position + 1 < len(bounds):
            heapq.heappush(queue, (bounds[position + 1], index, position + 1))
        # The last bound is always the largest one: cut at most num_buckets - 1 inner bounds.
        while swept >= next_cut * (1 - 1e-12) and len(merged) < num_buckets:
            merged.append(bound)
            next_cut += per_bucket
    merged.append(highest)
    return merged
