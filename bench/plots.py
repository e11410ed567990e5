"""The benchmark's pictures (PNG, matplotlib, no display needed)."""

from __future__ import annotations

from pathlib import Path

import matplotlib
import matplotlib.ticker

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def ratios(goals: list[dict], path: Path) -> None:
    """Measured ratio against its goal, one bar each (log scale: 1 is parity)."""
    figure, axes = plt.subplots(figsize=(9, 0.6 * len(goals) + 1.5))
    names = [g["name"] for g in goals]
    values = [g["value"] for g in goals]
    colors = ["#2a9d8f" if g["met"] else "#e76f51" for g in goals]
    axes.barh(names, values, color=colors)
    for index, goal in enumerate(goals):
        axes.plot([goal["goal"]] * 2, [index - 0.4, index + 0.4], color="black", linewidth=2)
        axes.text(goal["value"], index, f" {goal['value']:.2f}x", va="center")
    axes.set_xscale("log")
    axes.invert_yaxis()
    axes.set_xlabel("ratio (black mark: goal; green: met, red: missed)")
    axes.set_title("dbt_analyze against its goals")
    figure.tight_layout()
    figure.savefig(path, dpi=110)
    plt.close(figure)


def scaling(rows: dict, columns: dict, path: Path) -> None:
    """Seconds against rows and against columns, ours and Spark's, with a linear reference."""
    figure, (by_rows, by_columns) = plt.subplots(1, 2, figsize=(11, 4))
    for axes, data, label in ((by_rows, rows, "rows"), (by_columns, columns, "columns")):
        sizes = sorted(int(size) for size in data)
        for series, style in (("ours_full", "o-"), ("ours_basic", "s-"), ("spark_analyze", "^-"), ("spark_analyze_histograms", "v-")):
            if all(series in data[str(size)] for size in sizes):
                axes.plot(sizes, [data[str(size)][series] for size in sizes], style, label=series.replace("_", " "))
        first = data[str(sizes[0])]["ours_full"]
        axes.plot(sizes, [first * size / sizes[0] for size in sizes], ":", color="grey", label="linear from the first point")
        axes.set_xscale("log")
        axes.set_yscale("log")
        axes.set_xticks(sizes, [f"{size:,}" for size in sizes])
        axes.xaxis.set_minor_formatter(matplotlib.ticker.NullFormatter())
        axes.set_xlabel(label)
        axes.set_ylabel("seconds")
        axes.legend(fontsize=8)
    by_rows.set_title("time against rows")
    by_columns.set_title("time against columns")
    figure.tight_layout()
    figure.savefig(path, dpi=110)
    plt.close(figure)


def accuracy(ndv: dict, path: Path) -> None:
    """NDV relative error p95 per table, ours and Spark's."""
    tables = list(ndv)
    figure, axes = plt.subplots(figsize=(9, 4))
    positions = range(len(tables))
    for offset, who, color in ((-0.2, "ours", "#2a9d8f"), (0.2, "spark", "#264653")):
        axes.bar([p + offset for p in positions], [100 * ndv[t][who].get("p95", 0) for t in tables], width=0.4, label=who, color=color)
    axes.axhline(2, color="#e76f51", linestyle="--", label="goal: p95 <= 2%")
    axes.set_xticks(list(positions), [t.split(".")[-1] for t in tables], rotation=20)
    axes.set_ylabel("NDV relative error, p95 (%)")
    axes.legend()
    axes.set_title("distinct counts against exact counts")
    figure.tight_layout()
    figure.savefig(path, dpi=110)
    plt.close(figure)
