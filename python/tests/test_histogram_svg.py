"""Histogram pictures: bins in, an SVG out with one bar per bin, areas proportional to rows."""

import xml.etree.ElementTree as ET

from dbt_analyze.histogram_svg import HEIGHT, histogram_svg

SVG = "{http://www.w3.org/2000/svg}"


def drawn(bins, title=""):
    root = ET.fromstring(histogram_svg(bins, title))
    bars = [r for r in root.iter(f"{SVG}rect") if r.get("class") == "bar"]
    texts = [t.text for t in root.iter(f"{SVG}text")]
    return [(float(b.get("x")), float(b.get("width")), float(b.get("height"))) for b in bars], texts


def test_one_bar_per_bin_in_order_spanning_the_axis():
    bins = [(str(i), str(i + 1), 100.0) for i in range(10)]
    bars, texts = drawn(bins, "uniform")
    assert len(bars) == 10
    assert [b[0] for b in bars] == sorted(b[0] for b in bars)
    assert len({round(b[2], 6) for b in bars}) == 1  # equal widths and rows: equal heights
    assert texts[0].startswith("uniform") and texts[1:] == ["0", "5", "10"]


def test_narrow_bins_of_frequent_values_are_taller():
    bins = [("0", "10", 50.0), ("10", "11", 50.0), ("11", "21", 50.0)]
    bars, _ = drawn(bins)
    wide, narrow, _ = bars
    assert narrow[2] > wide[2] * 9  # 10x the density
    assert narrow[1] < wide[1] / 9


def test_a_single_value_bin_is_drawn_full_height_and_visible():
    bars, _ = drawn([("0", "5", 10.0), ("5", "5", 10.0), ("5", "10", 10.0)])
    assert bars[1][1] >= 1.5 and bars[1][2] >= max(b[2] for b in bars) - 1e-6
    assert all(b[2] <= HEIGHT for b in bars)


def test_dates_and_timestamps_are_placed_on_a_time_axis():
    bars, texts = drawn([("2024-01-01", "2024-01-02", 5.0), ("2024-01-02", "2024-01-31", 5.0)])
    assert bars[0][1] < bars[1][1] and bars[0][2] > bars[1][2]
    assert texts[-1] == "2024-01-31"
    stamps, _ = drawn([("2024-01-01 00:00:00", "2024-01-01 12:00:00", 1.0), ("2024-01-01 12:00:00", "2024-01-02 00:00:00", 1.0)])
    assert abs(stamps[0][1] - stamps[1][1]) < 1e-6


def test_labels_are_escaped():
    svg = histogram_svg([("<a>", "&b", 1.0)], title="x<script>")
    assert "<script>" not in svg and "&lt;script&gt;" in svg
    ET.fromstring(svg)  # still well-formed
