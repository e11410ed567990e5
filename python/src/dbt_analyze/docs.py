"""Statistics in dbt docs: ``dbt-analyze docs generate`` is ``dbt docs generate`` plus statistics.

It runs, in one process (so the embedded Spark session is shared), the package's
``docs_statistics`` run-operation (the current statistics as JSON), then ``dbt docs generate`` with
the same arguments, and then adds to ``target/manifest.json`` and ``target/catalog.json``:

- on each analyzed model, seed, snapshot or source: a "Statistics (dbt_analyze)" section after the
  description (row count, size, files, partitions, last analyzed, fresh or stale; a column table;
  a histogram picture and the top values per column; pictures of the row count's history, and of
  each column's null fraction and distinct count where the table has three runs or more), and a
  short line on each column;
- on each model with estimates (``estimate_statistics``): an "Estimated statistics" section, every
  number marked as an estimate with its accuracy and the analyzed columns it comes from;
- the catalog's row count and size from our statistics (Spark's catalog says ``rows: 0`` for
  tables it never analyzed), with files, partitions and last analyzed beside them;
- on the project's overview page: every analyzed table with its freshness and last run.

Text that is already there is kept; nodes without statistics are left exactly as they were.
``dbt docs serve`` then shows it all.

>>> section = model_section({"row_count": 3, "size_bytes": 2048, "file_count": 1}, [], {}, {}, None, None)
>>> section.splitlines()[0]
'### Statistics (dbt_analyze)'
"""

from __future__ import annotations

import argparse
import base64
import json
import math
import os
import re
import sys
from collections import defaultdict
from pathlib import Path
from typing import Any, Dict, Iterable, List, Optional, Tuple

from dbt_analyze.histogram_svg import histogram_svg
from dbt_analyze.history_svg import history_svg, significant

SECTION = "### Statistics (dbt_analyze)"
ESTIMATED_SECTION = "### Estimated statistics (dbt_analyze)"
# A column's line is plain text (dbt docs shows column descriptions unrendered in its table) and
# leads with its numbers: that table shows a description's first characters only.
COLUMN_SUFFIX = " (dbt_analyze)"
COLUMN_LINE = re.compile(r"(nulls [0-9.]+%|distinct |range ).*" + re.escape(COLUMN_SUFFIX))
Key = Tuple[str, str]


def escape(value: Any, limit: Optional[int] = 40) -> str:
    """A value made safe inside a markdown table cell (and shortened to limit characters, unless None).

    >>> escape("a|b*c")
    'a\\\\|b\\\\*c'
    >>> escape("x" * 50)[-3:], escape("x" * 50, limit=None)[-3:]
    ('xx…', 'xxx')
    """
    text = "" if value is None else str(value)
    text = text if limit is None or len(text) <= limit else text[:limit - 1] + "…"
    for char in "\\`*_[]|<>":
        text = text.replace(char, "\\" + char)
    return text.replace("\n", " ")


def human_bytes(size: Optional[float]) -> str:
    """A size for people.

    >>> human_bytes(1536)
    '1.5 KiB'
    """
    if size is None:
        return "unknown"
    value = float(size)
    for unit in ("B", "KiB", "MiB", "GiB", "TiB"):
        if value < 1024 or unit == "TiB":
            return f"{value:.0f} {unit}" if unit == "B" else f"{value:.1f} {unit}"
        value /= 1024
    return f"{value:.1f} TiB"


def number(value: Any, digits: int = 2) -> str:
    if value is None:
        return ""
    if isinstance(value, float) and not value.is_integer():
        return f"{value:,.{digits}f}"
    return f"{int(float(value)):,}"


def shown_value(value: Any, data_type: Optional[str]) -> str:
    """A stored value for the page: a float's or double's to 4 significant digits, others as stored.

    >>> shown_value("1.5212905045691727E-4", "double"), shown_value("12345678901234567890", "decimal(20,0)")
    ('0.0001521', '12345678901234567890')
    """
    if data_type in ("float", "double") and value is not None:
        try:
            return significant(float(value))
        except ValueError:  # NaN, Infinity as Spark writes them
            return str(value)
    return "" if value is None else str(value)


def history_pictures(history: List[Dict[str, Any]]) -> List[str]:
    """The markdown images of a table's history (rows of statistics_history of its succeeded runs,
    oldest first: the table's, column_name '', and its columns'): the row count over its runs, and
    each column's null fraction and distinct count where there are three runs or more."""
    tables = {row["run_id"]: row for row in history if row["column_name"] == ""}
    runs = sorted(tables, key=lambda run: (tables[run].get("collected_at") or "", run))
    lines = []
    if len(runs) >= 2:
        points = [(tables[run].get("collected_at"), tables[run].get("row_count")) for run in runs]
        lines += [image(history_svg(points, "rows"), "row count history"), ""]
    if len(runs) < 3:
        return lines
    by_column: Dict[str, Dict[str, Dict[str, Any]]] = defaultdict(dict)
    for row in history:
        if row["column_name"]:
            by_column[row["column_name"]][row["run_id"]] = row
    for name in sorted(by_column):
        rows = [(tables[run], by_column[name].get(run)) for run in runs if run in by_column[name]]
        if len(rows) < 3:
            continue
        fractions = [
            (
                table.get("collected_at"),
                column["null_count"] / table["row_count"]
                if table.get("row_count") and column.get("null_count") is not None
                else None,
            )
            for table, column in rows
        ]
        distinct = [(table.get("collected_at"), column.get("distinct_count")) for table, column in rows]
        lines += [image(history_svg(fractions, f"{name}: null fraction"), f"null fraction history of {name}"), "",
                  image(history_svg(distinct, f"{name}: distinct values"), f"distinct count history of {name}"), ""]
    return lines


def image(svg: str, alt: str) -> str:
    return f"![{escape(alt)}](data:image/svg+xml;base64,{base64.b64encode(svg.encode()).decode()})"


def model_section(
    table: Dict[str, Any],
    columns: List[Dict[str, Any]],
    histograms: Dict[str, List[Dict[str, Any]]],
    top_values: Dict[str, List[Dict[str, Any]]],
    staleness: Optional[Dict[str, Any]],
    run: Optional[Dict[str, Any]],
    history: Optional[List[Dict[str, Any]]] = None,
    groups: Optional[List[Dict[str, Any]]] = None,
) -> str:
    """The markdown section of one table's page."""
    rows = table.get("row_count")
    facts = [f"**Rows** {number(rows) if rows is not None else 'unknown (not every partition analyzed)'}",
             f"**Size** {human_bytes(table.get('size_bytes'))}", f"**Files** {number(table.get('file_count'))}"]
    if table.get("partition_count") is not None:
        facts.append(
            f"**Partitions** {number(table.get('partitions_analyzed'))} of {number(table['partition_count'])} analyzed"
        )
    facts.append(f"**Last analyzed** {escape(str(table.get('collected_at', ''))[:19])} UTC")
    facts.append(f"**Data since** {escape(staleness['status']) if staleness else 'not checked (run analyze_stale)'}")
    if run:
        scanned = run.get("rows_scanned") or 0
        facts.append(
            f"**Last run** {escape(run.get('status'))}, {number(scanned)} row{'' if scanned == 1 else 's'} scanned"
        )
    lines = [SECTION, "", " · ".join(facts), ""] + history_pictures(history or [])
    if columns:
        # true/false only where the table has a boolean column: a page narrow enough for dbt docs' panel
        booleans = any(column.get("true_count") is not None for column in columns)
        header = ["column", "type", "null %", "distinct", "min", "max", "avg len", "max len"] + (
            ["true", "false"] if booleans else []
        )
        lines += [
            "| " + " | ".join(header) + " |",
            "|---|---|---:|---:|---|---|---:|---:|" + ("---:|---:|" if booleans else ""),
        ]
        for column in sorted(columns, key=lambda c: c["column_name"]):
            nulls = column.get("null_count")
            share = f"{100.0 * nulls / rows:.1f}" if rows and nulls is not None else ""
            cells = [
                escape(column["column_name"]),
                escape(column.get("data_type")),
                share,
                number(column.get("distinct_count")),
                escape(shown_value(column.get("min_value"), column.get("data_type"))),
                escape(shown_value(column.get("max_value"), column.get("data_type"))),
                number(column.get("avg_len")),
                number(column.get("max_len")),
            ]
            cells += [number(column.get("true_count")), number(column.get("false_count"))] if booleans else []
            lines.append("| " + " | ".join(cells) + " |")
        lines.append("")
    lines += group_lines(groups or [], columns)
    moments = {c["column_name"]: c for c in columns if c.get("mean") is not None}
    sampled = {c["column_name"]: sketched for c in columns if (sketched := sketched_share(c, rows))}
    for name in sorted(set(histograms) | set(top_values) | set(moments)):
        lines += [f"#### {escape(name)}", ""]
        if name in sampled:
            lines += [sampled[name], ""]
        if name in moments:
            stddev = moments[name].get("stddev")
            lines += [
                f"Mean {significant(moments[name]['mean'])}"
                + (f" · standard deviation {significant(stddev)}" if stddev is not None else ""),
                "",
            ]
        if histograms.get(name):
            bins = [
                (b.get("lower_bound"), b.get("upper_bound"), float(b.get("row_count") or 0)) for b in histograms[name]
            ]
            lines += [image(histogram_svg(bins, title=name), f"histogram of {name}"), ""]
        if top_values.get(name):
            shown = [f"{escape(v.get('value'))} ({number(v.get('frequency'))})" for v in top_values[name][:10]]
            lines += ["Top values: " + ", ".join(shown), ""]
    return "\n".join(lines)


def group_lines(groups: List[Dict[str, Any]], columns: List[Dict[str, Any]]) -> List[str]:
    """A table of the column groups: each group's distinct combinations beside the product of its
    columns' distinct counts (what an estimate that takes them as independent would use).

    >>> group_lines([{"column_names": ["zip", "city"], "distinct_count": 600, "null_count": 5}],
    ...             [{"column_name": "zip", "distinct_count": 600}, {"column_name": "city", "distinct_count": 60}])
    ['| column group | distinct | product of the distinct counts | nulls |', '|---|---:|---:|---:|', '| zip, city | 600 | 36,000 | 5 |', '']
    """
    if not groups:
        return []
    ndv = {c["column_name"].lower(): c.get("distinct_count") for c in columns}
    lines = ["| column group | distinct | product of the distinct counts | nulls |", "|---|---:|---:|---:|"]
    for group in groups:
        names = list(group["column_names"])
        counts = [ndv.get(name.lower()) for name in names]
        product = math.prod(counts) if all(count is not None for count in counts) else None
        lines.append(f"| {escape(', '.join(names))} | {number(group.get('distinct_count'))} | {number(product)} "
                     f"| {number(group.get('null_count'))} |")
    return lines + [""]


def sketched_share(column: Dict[str, Any], rows: Optional[int]) -> Optional[str]:
    """What a column's quantiles, histogram and top values saw, where its sketches saw a sample of
    its values (sketch_values below its non-null rows); None where they saw every value.

    >>> sketched_share({"sketch_values": 50000, "null_count": 0}, 1000000)
    'Quantiles, histogram and top values from a sample: 50,000 of 1,000,000 values (5.0%).'
    >>> sketched_share({"sketch_values": 10, "null_count": 0}, 10) is None
    True
    """
    seen, values = column.get("sketch_values"), rows - column["null_count"] if rows and column.get("null_count") is not None else None
    if seen is None or values is None or seen >= values:
        return None
    return f"Quantiles, histogram and top values from a sample: {number(seen)} of {number(values)} values ({100.0 * seen / values:.1f}%)."


def estimated_section(estimates: List[Dict[str, Any]]) -> str:
    """The markdown section of a model's estimated column statistics.

    >>> estimated_section([{"column_name": "h", "data_type": "string", "row_count": 10, "null_count": 1,
    ...                     "distinct_count": 4, "accuracy": "accurate", "derived_from": "s.t.c"}]).splitlines()[6]
    '| h | string | accurate | 10 | 10.0 | 4 |  |  |  |  | s.t.c |'
    """
    when = str((estimates[0] if estimates else {}).get("estimated_at") or "")[:19]
    lines = [
        ESTIMATED_SECTION,
        "",
        f"Estimated from the inputs' statistics by estimate_statistics ({escape(when)} UTC), not measured; blank: not estimated.",
        "",
        "| column | type | accuracy | rows | null % | distinct | min | max | avg len | max len | derived from |",
        "|---|---|---|---:|---:|---:|---|---|---:|---:|---|",
    ]
    for column in estimates:
        rows, nulls = column.get("row_count"), column.get("null_count")
        share = f"{100.0 * nulls / rows:.1f}" if rows and nulls is not None else ""
        lines.append(
            "| "
            + " | ".join(
                [
                    escape(column["column_name"]),
                    escape(column.get("data_type")),
                    escape(column.get("accuracy")),
                    number(rows),
                    share,
                    number(column.get("distinct_count")),
                    escape(column.get("min_value")),
                    escape(column.get("max_value")),
                    number(column.get("avg_len")),
                    number(column.get("max_len")),
                    escape(column.get("derived_from"), limit=None),
                ]
            )
            + " |"
        )
    return "\n".join(lines)


def column_line(column: Dict[str, Any], rows: Optional[int]) -> str:
    """The short statistics line added to a column's description.

    >>> column_line({"null_count": 1, "distinct_count": 3, "min_value": "1.0", "max_value": "9.5"}, 4)
    'nulls 25.0%, distinct 3, range 1.0 … 9.5 (dbt_analyze)'
    """
    parts = []
    if rows:
        parts.append(f"nulls {100.0 * (column.get('null_count') or 0) / rows:.1f}%")
    if column.get("distinct_count") is not None:
        parts.append(f"distinct {number(column['distinct_count'])}")
    if column.get("min_value") is not None:
        parts.append(f"range {column['min_value'][:40]} … {str(column.get('max_value'))[:40]}")
    return ", ".join(parts) + COLUMN_SUFFIX if parts else ""


def appended(text: Optional[str], addition: str) -> str:
    """The user's text kept, ours after it (once: a previous addition is replaced).

    >>> appended(appended("In euros.", "nulls 1.0% (dbt_analyze)"), "nulls 2.0% (dbt_analyze)")
    'In euros.\\n\\nnulls 2.0% (dbt_analyze)'
    """
    text = text or ""
    for heading in (SECTION, ESTIMATED_SECTION):
        text = text.split("\n\n" + heading)[0]
    if text.startswith((SECTION, ESTIMATED_SECTION)):
        text = ""
    paragraphs = text.split("\n\n")
    if COLUMN_LINE.fullmatch(paragraphs[-1]):
        text = "\n\n".join(paragraphs[:-1])
    return (text + "\n\n" + addition).strip() if text else addition


def by_table(rows: Iterable[Dict[str, Any]]) -> Dict[Key, List[Dict[str, Any]]]:
    grouped: Dict[Key, List[Dict[str, Any]]] = defaultdict(list)
    for row in rows:
        grouped[(row["table_schema"].lower(), row["table_name"].lower())].append(row)
    return grouped


def relation_key(node: Dict[str, Any]) -> Key:
    identifier = node.get("alias") or node.get("identifier") or node["name"]
    return (str(node.get("schema", "")).lower(), str(identifier).lower())


def annotate(manifest: Dict[str, Any], catalog: Dict[str, Any], statistics: Dict[str, Any]) -> List[str]:
    """Add the statistics to a manifest and catalog (in place); returns the nodes annotated."""
    tables = {key: rows[0] for key, rows in by_table(statistics.get("tables", [])).items()}
    columns, staleness, runs = (
        by_table(statistics.get("columns", [])),
        by_table(statistics.get("staleness", [])),
        by_table(statistics.get("runs", [])),
    )
    estimates, history = by_table(statistics.get("estimates", [])), by_table(statistics.get("history", []))
    groups = by_table(statistics.get("column_groups", []))
    histograms: Dict[Key, Dict[str, list]] = defaultdict(lambda: defaultdict(list))
    for row in statistics.get("histograms", []):
        histograms[(row["table_schema"].lower(), row["table_name"].lower())][row["column_name"]].append(row)
    top_values: Dict[Key, Dict[str, list]] = defaultdict(lambda: defaultdict(list))
    for row in statistics.get("top_values", []):
        top_values[(row["table_schema"].lower(), row["table_name"].lower())][row["column_name"]].append(row)

    annotated = []
    nodes = {**manifest.get("nodes", {}), **manifest.get("sources", {})}
    for unique_id, node in nodes.items():
        if node.get("resource_type") not in ("model", "seed", "snapshot", "source"):
            continue
        key = relation_key(node)
        if key not in tables and key not in estimates:
            continue
        sections = [estimated_section(estimates[key])] if key in estimates else []
        if key not in tables:
            node["description"] = appended(node.get("description"), sections[0])
            annotated.append(unique_id)
            continue
        table = tables[key]
        table_columns = columns.get(key, [])
        node["description"] = appended(node.get("description"), "\n\n".join([model_section(
            table, table_columns, histograms.get(key, {}), top_values.get(key, {}),
            (staleness.get(key) or [None])[0], (runs.get(key) or [None])[0], history.get(key),
            groups.get(key))] + sections))
        documented = {name.lower(): name for name in node.get("columns", {})}
        for column in table_columns:
            line = column_line(column, table.get("row_count"))
            name = documented.get(column["column_name"].lower())
            if name is None:
                node.setdefault("columns", {})[column["column_name"]] = {
                    "name": column["column_name"],
                    "description": line,
                    "meta": {},
                    "data_type": column.get("data_type"),
                    "constraints": [],
                    "quote": None,
                    "tags": [],
                }
            else:
                node["columns"][name]["description"] = appended(node["columns"][name].get("description"), line)
        catalog_node = catalog.get("sources" if node["resource_type"] == "source" else "nodes", {}).get(unique_id)
        if catalog_node is not None:
            catalog_node["stats"] = {
                **catalog_node.get("stats", {}),
                **catalog_stats(table, (staleness.get(key) or [None])[0]),
            }
        annotated.append(unique_id)
    add_overview(manifest, tables, staleness, runs)
    return annotated


def catalog_stats(table: Dict[str, Any], staleness: Optional[Dict[str, Any]]) -> Dict[str, Dict[str, Any]]:
    """Entries of a catalog node's stats (dbt docs shows those with include: true under Details)."""
    def stat(key: str, label: str, value: Any, description: str) -> Tuple[str, Dict[str, Any]]:
        return key, {
            "id": key,
            "label": label,
            "value": value,
            "include": value is not None,
            "description": description,
        }

    return dict(
        [
            stat("rows", "Rows", table.get("row_count"), "Row count from dbt_analyze's statistics"),
            stat("bytes", "Approximate size", table.get("size_bytes"), "Size of the table's files"),
            stat("dbt_analyze_files", "Files", table.get("file_count"), "Data files"),
            stat("dbt_analyze_partitions", "Partitions", table.get("partition_count"), "Partitions of the table"),
            stat(
                "dbt_analyze_collected_at",
                "Last analyzed",
                table.get("collected_at"),
                "When dbt_analyze collected the statistics (UTC)",
            ),
            stat(
                "dbt_analyze_freshness",
                "Data since analyzed",
                staleness["status"] if staleness else None,
                "fresh or stale, at the last analyze_stale",
            ),
            stat("has_stats", "Has Stats?", True, "Indicates whether there are statistics for this table"),
        ]
    )


def add_overview(
    manifest: Dict[str, Any], tables: Dict[Key, Dict[str, Any]], staleness: Dict[Key, list], runs: Dict[Key, list]
) -> None:
    """The overview page: the project's own text, then every analyzed table."""
    project = manifest.get("metadata", {}).get("project_name") or "dbt"
    docs = manifest.setdefault("docs", {})
    own = docs.get(f"doc.{project}.__overview__") or docs.get("doc.dbt.__overview__") or {}
    lines = ["## Statistics (dbt_analyze)", "",
             "| table | rows | size | partitions | last analyzed | data since | last run | rows scanned | scan ms |",
             "|---|---:|---:|---:|---|---|---|---:|---:|"]
    for key in sorted(tables):
        table, check, run = tables[key], (staleness.get(key) or [None])[0], (runs.get(key) or [{}])[0]
        lines.append(
            "| "
            + " | ".join(
                [
                    escape(f"{key[0]}.{key[1]}"),
                    number(table.get("row_count")),
                    human_bytes(table.get("size_bytes")),
                    number(table.get("partition_count")),
                    escape(table.get("collected_at")),
                    escape(check["status"]) if check else "not checked",
                    escape(run.get("status")),
                    number(run.get("rows_scanned")),
                    number(run.get("scan_ms")),
                ]
            )
            + " |"
        )
    contents = own.get("block_contents", "")
    docs[f"doc.{project}.__overview__"] = {
        **own,
        "name": "__overview__",
        "resource_type": "doc",
        "package_name": project,
        "unique_id": f"doc.{project}.__overview__",
        "path": own.get("path", "overview.md"),
        "original_file_path": own.get("original_file_path", "overview.md"),
        "block_contents": (contents.split("\n\n## Statistics (dbt_analyze)")[0] + "\n\n" + "\n".join(lines)).strip(),
    }


def generate(dbt_args: List[str]) -> int:
    """``dbt docs generate`` with the statistics; returns a process exit code."""
    from dbt.cli.main import dbtRunner

    # no abbreviations: --target (a profile's target) is not --target-path
    options = argparse.ArgumentParser(add_help=False, allow_abbrev=False)
    options.add_argument("--project-dir", default=os.environ.get("DBT_PROJECT_DIR", "."))
    options.add_argument("--target-path", default=None)
    known, _ = options.parse_known_args(dbt_args)
    # dbt's target path: the option, else its environment variable; relative to the project
    # (as dbt reads them; dbt_project.yml's deprecated target-path is not read here)
    target = Path(known.project_dir) / (known.target_path or os.environ.get("DBT_TARGET_PATH") or "target")
    target.mkdir(parents=True, exist_ok=True)
    statistics_path = (target / "dbt_analyze_statistics.json").resolve()

    runner = dbtRunner()
    dumped = runner.invoke(
        ["run-operation", "docs_statistics", "--args", json.dumps({"path": str(statistics_path)}), *dbt_args]
    )
    if not dumped.success:
        print("dbt-analyze: reading the statistics failed", file=sys.stderr)
        return 1
    generated = runner.invoke(["docs", "generate", *dbt_args])
    if not generated.success:
        return 1
    manifest_path, catalog_path = target / "manifest.json", target / "catalog.json"
    manifest, catalog = json.loads(manifest_path.read_text()), json.loads(catalog_path.read_text())
    annotated = annotate(manifest, catalog, json.loads(statistics_path.read_text()))
    manifest_path.write_text(json.dumps(manifest))
    catalog_path.write_text(json.dumps(catalog))
    print(f"dbt-analyze: statistics added to the docs of {len(annotated)} node(s) in {target}")
    return 0


def main(argv: Optional[List[str]] = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:2] != ["docs", "generate"]:
        print("usage: dbt-analyze docs generate [dbt docs generate options]", file=sys.stderr)
        return 2
    return generate(argv[2:])


if __name__ == "__main__":
    sys.exit(main())
