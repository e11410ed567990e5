"""History pictures: one statistic over a table's runs (row count, a column's null fraction or
distinct count), drawn as a small SVG line for dbt docs.

Points are evenly spaced by run, oldest on the left; the vertical axis spans the values' own range
(a flat history is drawn as a flat line in the middle), labelled with its lowest and highest value
and the first and last run's date.

>>> svg = history_svg([("2026-11-01 10:00:00", 100.0), ("2026-11-02 10:00:00", 120.0), ("2026-11-03 10:00:00", 90.0)], "rows")
>>> svg.count('class="point"'), '>120<' in svg, '>2026-11-03<' in svg
(3, True, True)
"""

from __future__ import annotations

import html
from typing import List, Optional, Sequence, Tuple

WIDTH, HEIGHT = 480, 110
MARGIN_LEFT, MARGIN_RIGHT, MARGIN_TOP, MARGIN_BOTTOM = 48, 12, 22, 24

Point = Tuple[str, Optional[float]]  # when the run collected it, the value (None: unknown)


def significant(value: float, digits: int = 4) -> str:
    """A number for people: whole numbers with thousands separators, others to `digits` significant digits.

    >>> significant(1234567.0), significant(1.5212905045691727e-4), significant(0.25)
    ('1,234,567', '0.0001521', '0.25')
    """
    if float(value).is_integer() and abs(value) < 1e15:
        return f"{int(value):,}"
    text = f"{value:.{digits}g}"
    if "e" in text:  # 1.521e-04 reads worse than 0.0001521 where the exponent is small
        mantissa, exponent = text.split("e")
        if -6 <= int(exponent) < 15:
            return f"{value:.{digits - 1 - int(exponent)}f}" if int(exponent) < 0 else f"{value:,.0f}"
    return text


def positions(values: Sequence[float]) -> List[Tuple[float, float]]:
    """(x, y) of each value in the picture.

    >>> positions([1.0, 3.0])
    [(48.0, 86.0), (468.0, 22.0)]
    """
    low, high = min(values), max(values)
    plot_width, plot_height = WIDTH - MARGIN_LEFT - MARGIN_RIGHT, HEIGHT - MARGIN_TOP - MARGIN_BOTTOM
    step = plot_width / max(len(values) - 1, 1)
    return [
        (
            MARGIN_LEFT + i * step,
            MARGIN_TOP + (plot_height / 2 if high == low else (high - value) / (high - low) * plot_height),
        )
        for i, value in enumerate(values)
    ]


def history_svg(points: Sequence[Point], title: str) -> str:
    """The history as a standalone SVG document (no scripts, no external references)."""
    known = [(when, value) for when, value in points if value is not None]
    xy = positions([value for _, value in known]) if known else []
    line = " ".join(f"{x:.1f},{y:.1f}" for x, y in xy)
    dots = "".join(f'<circle class="point" cx="{x:.1f}" cy="{y:.1f}" r="2.5" fill="#4f7cac"/>' for x, y in xy)
    labels = []
    if known:
        values = [value for _, value in known]
        labels += [
            f'<text x="{MARGIN_LEFT - 4}" y="{MARGIN_TOP + 4}" text-anchor="end" font-size="10">{significant(max(values))}</text>',
            f'<text x="{MARGIN_LEFT - 4}" y="{HEIGHT - MARGIN_BOTTOM}" text-anchor="end" font-size="10">{significant(min(values))}</text>',
        ]
        for anchor, x, when in (("start", MARGIN_LEFT, known[0][0]), ("end", WIDTH - MARGIN_RIGHT, known[-1][0])):
            labels.append(
                f'<text x="{x}" y="{HEIGHT - 6}" text-anchor="{anchor}" font-size="10">{html.escape(str(when)[:10])}</text>'
            )
    caption = f"{title} over the last {len(known)} runs"
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{HEIGHT}" viewBox="0 0 {WIDTH} {HEIGHT}" '
        f'font-family="sans-serif" role="img" aria-label="{html.escape(caption)}">'
        f'<rect width="{WIDTH}" height="{HEIGHT}" fill="white"/>'
        f'<text x="{MARGIN_LEFT}" y="14" font-size="12">{html.escape(caption)}</text>'
        f'<polyline points="{line}" fill="none" stroke="#4f7cac" stroke-width="1.5"/>'
        + dots
        + "".join(labels)
        + "</svg>"
    )
