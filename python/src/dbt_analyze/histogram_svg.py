"""Histogram pictures: an equi-height histogram drawn as a small SVG for dbt docs.

Each bin holds about the same number of rows, so the bars are drawn on a value axis with their
area proportional to their rows: a bar spans its bin's bounds and its height is rows / width (the
density). Narrow bins of frequent values stand out as tall bars; a bin of a single value (zero
width) gets a minimum width and is drawn at full height. The axis is labelled with the smallest,
the middle and the largest bound as the statistics tables hold them (numbers, dates, timestamps).

>>> svg = histogram_svg([("0", "1", 10.0), ("1", "2", 10.0), ("2", "10", 10.0)], title="amount")
>>> svg.count('class="bar"')
3
>>> 'amount' in svg and '>0<' in svg and '>10<' in svg
True
"""

from __future__ import annotations

import html
from datetime import date, datetime
from typing import List, Optional, Sequence, Tuple

WIDTH, HEIGHT = 480, 160
MARGIN_LEFT, MARGIN_RIGHT, MARGIN_TOP, MARGIN_BOTTOM = 8, 8, 22, 30
MIN_BAR_WIDTH = 1.5

Bin = Tuple[str, str, float]  # lower bound, upper bound (as rendered by Spark), rows


def as_number(value: str) -> Optional[float]:
    """A bound on the value axis: numbers as they are, dates and timestamps as seconds.

    >>> as_number("2.5"), as_number("1970-01-02"), as_number("1970-01-01 00:01:00")
    (2.5, 86400.0, 60.0)
    """
    try:
        return float(value)
    except (TypeError, ValueError):
        pass
    for parse in (datetime.fromisoformat, lambda text: datetime.combine(date.fromisoformat(text), datetime.min.time())):
        try:
            moment = parse(value)
            return (moment.replace(tzinfo=None) - datetime(1970, 1, 1)).total_seconds()
        except (TypeError, ValueError):
            continue
    return None


def bars(bins: Sequence[Bin]) -> List[Tuple[float, float, float]]:
    """(x, width, height) of each bar in the plot area, heights as a fraction of the tallest.

    >>> [tuple(round(v, 2) for v in bar) for bar in bars([("0", "1", 5.0), ("1", "3", 5.0)])]
    [(0.0, 154.67, 1.0), (154.67, 309.33, 0.5)]
    """
    points = [(as_number(lower), as_number(upper), rows) for lower, upper, rows in bins]
    points = [(lower, upper, rows) for lower, upper, rows in points if lower is not None and upper is not None]
    if not points:
        return []
    start, end = min(p[0] for p in points), max(p[1] for p in points)
    span = (end - start) or 1.0
    plot_width = WIDTH - MARGIN_LEFT - MARGIN_RIGHT
    densities = [rows / (upper - lower) for lower, upper, rows in points if upper > lower]
    tallest = max(densities) if densities else 1.0
    result = []
    for lower, upper, rows in points:
        x = (lower - start) / span * plot_width
        width = max((upper - lower) / span * plot_width, MIN_BAR_WIDTH)
        height = 1.0 if upper <= lower or tallest <= 0 else min(rows / (upper - lower) / tallest, 1.0)
        result.append((x, width, height))
    return result


def histogram_svg(bins: Sequence[Bin], title: str = "") -> str:
    """The histogram as a standalone SVG document (no scripts, no external references)."""
    plot_height = HEIGHT - MARGIN_TOP - MARGIN_BOTTOM
    shapes = []
    for x, width, height in bars(bins):
        bar_height = max(height * plot_height, 1.0)
        shapes.append(f'<rect class="bar" x="{MARGIN_LEFT + x:.2f}" y="{MARGIN_TOP + plot_height - bar_height:.2f}" '
                      f'width="{width:.2f}" height="{bar_height:.2f}" fill="#4f7cac"/>')
    labels = []
    if bins:
        middle = bins[len(bins) // 2][0]
        axis_y = HEIGHT - MARGIN_BOTTOM + 14
        for anchor, x, text in (
            ("start", MARGIN_LEFT, bins[0][0]),
            ("middle", WIDTH / 2, middle),
            ("end", WIDTH - MARGIN_RIGHT, bins[-1][1]),
        ):
            labels.append(
                f'<text x="{x}" y="{axis_y}" text-anchor="{anchor}" font-size="11">{html.escape(str(text))}</text>'
            )
    caption = f"{title}: {len(bins)} bins of about equal rows" if title else f"{len(bins)} bins"
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{HEIGHT}" viewBox="0 0 {WIDTH} {HEIGHT}" '
        f'font-family="sans-serif" role="img" aria-label="{html.escape(caption)}">'
        f'<rect width="{WIDTH}" height="{HEIGHT}" fill="white"/>'
        f'<text x="{MARGIN_LEFT}" y="14" font-size="12">{html.escape(caption)}</text>'
        f'<line x1="{MARGIN_LEFT}" y1="{HEIGHT - MARGIN_BOTTOM}" x2="{WIDTH - MARGIN_RIGHT}" y2="{HEIGHT - MARGIN_BOTTOM}" stroke="#555"/>'
        + "".join(shapes)
        + "".join(labels)
        + "</svg>"
    )
