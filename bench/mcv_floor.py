"""How many most common values `x = v` needs on a scattered Zipf column.

    .venv/bin/python bench/mcv_floor.py [--rows 1000000]

Draws ESTIMATION.md's zipf_scattered column (Zipf(1.1) frequencies over 100,000 ranks, the ranks
scattered by 7919 mod 1,000,003; numpy's generator, not Spark's rand) and, for each count K of
values whose rows are known exactly (a most-common-value list of K), reports the rows they cover
and the floor of `x = v` with v drawn from the rows: the lowest p95 q-error that any estimate
giving one number to all the other values of a bin of 254 equi-height bins reaches
(`estimation.equality_floor`). Numbers only, from exact counts: no Spark.
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from estimation import equality_floor  # noqa: E402

BINS = 254
LISTS = (20, 256, 512, 1024, 2048, 4096)


def floors(rows: int, seed: int = 1) -> list[tuple[int, float, float]]:
    """(K, share of the rows the K most common values hold, floor) for each K in LISTS.

    >>> [(k, round(share, 2)) for k, share, _ in floors(20_000)[:2]]
    [(20, 0.39), (256, 0.63)]
    """
    uniform = np.random.default_rng(seed).random(rows)
    ranks = np.floor((1 - uniform * (1 - 100000 ** -0.1)) ** -10).astype(np.int64)
    column = ranks * 7919 % 1000003
    values, counts = np.unique(column, return_counts=True)
    by_count = np.argsort(-counts, kind="stable")
    uppers = np.sort(column)[np.linspace(0, rows - 1, BINS + 1).astype(int)][1:]
    bin_of = np.minimum(np.searchsorted(uppers, values, side="left"), BINS - 1)
    found = []
    for k in LISTS:
        listed = np.zeros(len(values), dtype=bool)
        listed[by_count[:k]] = True
        bins = [Counter() for _ in range(BINS)]
        for count, bin_index in zip(counts[~listed].tolist(), bin_of[~listed].tolist()):
            bins[bin_index][count] += 1
        exact = int(counts[listed].sum())
        found.append((k, exact / rows, equality_floor(bins, exact)))
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=1_000_000)
    rows = parser.parse_args().rows
    print(f"| most common values kept | their rows | floor of x = v (p95 q-error), {rows:,} rows |")
    print("|---:|---:|---:|")
    for k, share, floor in floors(rows):
        print(f"| {k:,} | {share:.1%} | {floor:.2f} |")


if __name__ == "__main__":
    main()
