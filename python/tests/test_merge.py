import bisect
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from greenplum_merge import merge_histograms, merge_most_common_values, merge_row_counts, merge_weighted


def equi_height(values, buckets):
    values = sorted(values)
    return [values[min(len(values) - 1, round(i * (len(values) - 1) / buckets))] for i in range(buckets + 1)]


def test_row_counts_add_up():
    assert merge_row_counts([3, 0, 7]) == 10


def test_weighted_average_skips_empty_parts_and_unknowns():
    assert merge_weighted([(10.0, 1), (20.0, 3), (None, 5), (99.0, 0)]) == pytest.approx(17.5)
    assert merge_weighted([]) is None


def test_most_common_values_are_row_weighted_and_the_rest_goes_to_the_histogram():
    kept, rest = merge_most_common_values([({"x": 0.9, "y": 0.1}, 90), ({"y": 0.5, "z": 0.5}, 10)], 1, min_frequency=0.2)
    assert kept == {"x": pytest.approx(0.81)}
    assert rest == {"y": pytest.approx(0.14), "z": pytest.approx(0.05)}


def test_most_common_values_below_the_threshold_are_not_kept():
    kept, rest = merge_most_common_values([({"a": 0.01}, 100)], 5, min_frequency=0.05)
    assert kept == {} and rest == {"a": pytest.approx(0.01)}


def test_one_histogram_merges_into_itself():
    bounds = [0.0, 1.0, 5.0, 9.0, 10.0]
    assert merge_histograms([(bounds, 400)], 4) == bounds


def test_disjoint_histograms_concatenate():
    assert merge_histograms([([0.0, 1.0, 2.0], 100), ([10.0, 11.0, 12.0], 100)], 4) == [0.0, 1.0, 2.0, 11.0, 12.0]


def test_larger_partition_weighs_more():
    merged = merge_histograms([([0.0, 10.0], 900), ([100.0, 110.0], 100)], 10)
    assert merged[0] == 0.0 and merged[-1] == 110.0
    assert sum(1 for b in merged[1:-1] if b <= 10.0) == 9


def test_single_value_histograms_and_errors():
    assert merge_histograms([([5.0], 10), ([5.0], 10)], 3) == [5.0, 5.0, 5.0, 5.0]
    assert merge_histograms([], 3) == []
    with pytest.raises(ValueError, match="ascending"):
        merge_histograms([([2.0, 1.0], 10)], 2)
    with pytest.raises(ValueError, match="num_buckets"):
        merge_histograms([([1.0, 2.0], 10)], 0)


@settings(max_examples=60, deadline=None)
@given(
    parts=st.lists(st.integers(min_value=200, max_value=2000), min_size=1, max_size=6),
    buckets=st.integers(min_value=2, max_value=20),
    seed=st.integers(min_value=0, max_value=10_000),
)
def test_merged_buckets_hold_about_equal_rows(parts, buckets, seed):
    rng = random.Random(seed)
    data, histograms = [], []
    for size in parts:
        center = rng.uniform(0, 100)
        values = [rng.gauss(center, rng.uniform(1, 20)) for _ in range(size)]
        data.extend(values)
        histograms.append((equi_height(values, 50), size))
    merged = merge_histograms(histograms, buckets)
    assert len(merged) == buckets + 1
    assert merged == sorted(merged)
    assert merged[0] == min(data) and merged[-1] == max(data)
    ordered = sorted(data)
    for low, high in zip(merged, merged[1:]):
        rows = bisect.bisect_right(ordered, high) - bisect.bisect_right(ordered, low)
        # each input bucket holds 1/50 of its partition: the sweep is exact up to one input bucket per partition
        slack = sum(size / 50 for size in parts) + 1
        assert abs(rows - len(data) / buckets) <= slack + len(data) / buckets * 0.05
