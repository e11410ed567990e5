"""Estimate a query's column statistics from its inputs' statistics, without running it.

The compiled SQL of a dbt model is parsed with sqlglot (Spark dialect) and qualified against the
inputs' columns; statistics then flow through CTEs and subqueries, filters (scaled with the
inputs' histograms and top values), GROUP BY keys, projections, casts, CASE and the scalar
functions that have a rule (:mod:`dbt_analyze.function_rules`). Whatever cannot be estimated is
unknown (None), and every estimate carries its accuracy and the analyzed columns it comes from.

>>> orders = RelationStats(1000, {"status": ColumnStats("string", 0.0, 3, "new", "shipped", 6.2, 7,
...                                                      derived_from=("shop.orders.status",))})
>>> result = estimate_query("select upper(status) as s, md5(status) as h from shop.orders",
...                         {("shop", "orders"): orders}, FunctionRules.load())
>>> result.row_count, result.columns["s"].distinct_count, result.columns["h"].max_len
(1000, 3, 32)
"""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Any, Optional

import sqlglot
from sqlglot.errors import SqlglotError
from sqlglot.optimizer.qualify import qualify

from dbt_analyze.column_stats import ColumnStats, format_value  # noqa: F401 (ColumnStats: the example above)
from dbt_analyze.expressions import Expressions, arithmetic_type
from dbt_analyze.function_rules import FunctionRules
from dbt_analyze.predicates import Predicates
from dbt_analyze.relations import RelationStats, Relations
from dbt_analyze.spark_naming import name_as_spark_does

__all__ = ["EstimateError", "RelationStats", "arithmetic_type", "estimate_models", "estimate_query", "estimate_rows",
           "named_as_spark"]


class EstimateError(ValueError):
    """SQL that cannot be read; the message says why."""


def estimate_query(sql: str, inputs: dict[tuple[str, str], RelationStats], rules: FunctionRules) -> RelationStats:
    """The estimated statistics of ``sql``'s result; ``inputs`` by (schema, table), lower case."""
    try:
        tree = sqlglot.parse_one(sql, read="spark")
    except SqlglotError as error:
        raise EstimateError(f"cannot parse the SQL: {str(error).splitlines()[0]}") from error
    schema: dict[str, dict] = {}
    for (database, table), relation in inputs.items():
        schema.setdefault(database, {})[table] = {column: stats.data_type or "string"
                                                 for column, stats in relation.columns.items()}
    name_as_spark_does(tree, sql)
    try:
        tree = qualify(tree, schema=schema, dialect="spark", validate_qualify_columns=False,
                       quote_identifiers=False, identify=False)
    except SqlglotError as error:
        raise EstimateError(f"cannot resolve the SQL's columns: {str(error).splitlines()[0]}") from error
    return _Estimator(inputs, rules).query(tree, {})


def named_as_spark(relation: RelationStats, names: Optional[list[str]]) -> RelationStats:
    """The relation's columns under the names Spark gives the query's columns (``DESCRIBE QUERY``),
    matched by position: spark_column_name names the common shapes of unaliased expression as
    Spark does, Spark names them all (``substring(c, 1, 2)``, which sqlglot reads as substr).
    Unchanged when the lists cannot be the same columns: other counts, or a name on both sides in
    another place.

    >>> stats = RelationStats(10, {"id": ColumnStats.unknown("int"), "coalesce(a, 0)": ColumnStats.unknown("int")})
    >>> list(named_as_spark(stats, ["id", "nvl(a, 0)"]).columns)
    ['id', 'nvl(a, 0)']
    >>> list(named_as_spark(stats, ["nvl(a, 0)", "id"]).columns)
    ['id', 'coalesce(a, 0)']
    """
    ours, theirs = list(relation.columns), [name.lower() for name in names or []]
    if len(theirs) != len(ours) or len(set(theirs)) != len(theirs):
        return relation
    if any(our != their and (their in ours or our in theirs) for our, their in zip(ours, theirs)):
        return relation
    return dataclasses.replace(relation, columns=dict(zip(theirs, relation.columns.values())))



class _Estimator(Relations, Predicates, Expressions):
    """A query's walk: relations (:mod:`~dbt_analyze.relations`), their filters
    (:mod:`~dbt_analyze.predicates`) and their columns' values (:mod:`~dbt_analyze.expressions`)."""

    def __init__(self, inputs: dict[tuple[str, str], RelationStats], rules: FunctionRules):
        self.inputs = inputs
        self.rules = rules


def estimate_rows(relation: RelationStats, table_schema: str, table_name: str) -> list[dict]:
    """The rows for ``column_statistics_estimated``: counts rounded, values as text, unknown as None."""
    out = []
    for name, stats in relation.columns.items():
        rows = relation.row_count
        known = stats.accuracy is not None
        nulls = None if not known or rows is None or stats.null_fraction is None else round(stats.null_fraction * rows)
        out.append({
            "table_schema": table_schema, "table_name": table_name, "column_name": name,
            "data_type": stats.data_type, "row_count": None if rows is None else round(rows),
            "null_count": nulls,
            "distinct_count": None if not known or stats.distinct_count is None else round(stats.distinct_count),
            "min_value": format_value(stats.min) if known else None,
            "max_value": format_value(stats.max) if known else None,
            "avg_len": float(stats.avg_len) if known and stats.avg_len is not None else None,
            "max_len": round(stats.max_len) if known and stats.max_len is not None else None,
            "accuracy": stats.accuracy if known and stats.is_known() else "unknown",
            "derived_from": ", ".join(stats.derived_from) or None,
        })
    return out


def estimate_models(models: list[dict], statistics: list[dict], rules: FunctionRules) -> tuple[list[dict], list[str]]:
    """Estimates for dbt models, upstream first, each estimate an input of the models below it.

    ``models``: unique_id, schema, name, sql (compiled; None when not compiled), depends_on
    (unique ids) and columns (the names Spark gives the SQL's columns, None where it could not
    tell: named_as_spark); ``statistics``: the analyzed inputs (schema, name, row_count, columns,
    histograms, top_values). Returns the rows for ``column_statistics_estimated`` and one message
    per model.
    """
    inputs = {(table["schema"].lower(), table["name"].lower()): RelationStats.from_statistics(
        table["schema"].lower(), table["name"].lower(), table) for table in statistics}
    by_id = {model["unique_id"]: model for model in models}
    done: set[str] = set()
    rows, messages = [], []

    def visit(model: dict, path: tuple) -> None:
        if model["unique_id"] in done or model["unique_id"] in path:
            return
        for upstream in model.get("depends_on", []):
            if upstream in by_id:
                visit(by_id[upstream], path + (model["unique_id"],))
        done.add(model["unique_id"])
        label = f"{model['schema']}.{model['name']}"
        if not model.get("sql"):
            messages.append(f"{label}: not compiled; run `dbt compile --select {model['name']}` first")
            return
        try:
            relation = named_as_spark(estimate_query(model["sql"], inputs, rules), model.get("columns"))
        except EstimateError as error:
            messages.append(f"{label}: {error}")
            return
        key = (model["schema"].lower(), model["name"].lower())
        inputs.setdefault(key, dataclasses.replace(relation, columns={
            name: stats.replace(histogram=None, top_values=None) for name, stats in relation.columns.items()}))
        found = estimate_rows(relation, model["schema"], model["name"])
        rows.extend(found)
        levels = [row["accuracy"] for row in found]
        summary = ", ".join(
            f"{levels.count(level)} {level}"
            for level in ("accurate", "high", "medium", "low", "unknown")
            if level in levels
        )
        rows_text = "unknown" if relation.row_count is None else f"{round(relation.row_count):,}"
        messages.append(f"{label}: {len(found)} column(s) estimated ({summary}), rows {rows_text}")

    for model in models:
        visit(model, ())
    return rows, messages


# The adapter methods of this concept (registered by dbt_analyze.adapter_methods).


def dbt_analyze_estimate_statistics(adapter: Any, payload_json: str) -> str:
    """payload: models (unique_id, schema, name, package_name, original_file_path, depends_on),
    statistics, rules (a mapping), rules_file, accuracy. Returns {rows, messages} as JSON."""
    payload = json.loads(payload_json)
    compiled_root = Path(adapter.config.project_root) / adapter.config.target_path / "compiled"
    models = []
    for model in payload["models"]:
        path = compiled_root / model["package_name"] / model["original_file_path"]
        sql = path.read_text(encoding="utf-8") if path.is_file() else None
        models.append({**model, "sql": sql, "columns": _described_columns(adapter, sql) if sql else None})
    extra = [Path(adapter.config.project_root) / payload["rules_file"]] if payload.get("rules_file") else []
    extra += [payload["rules"]] if payload.get("rules") else []
    rules = FunctionRules.load(extra, payload.get("accuracy") or "medium")
    rows, messages = estimate_models(models, payload.get("statistics", []), rules)
    return json.dumps({"rows": rows, "messages": messages})


def _described_columns(adapter: Any, sql: str) -> list[str] | None:
    """The names of a query's columns as Spark gives them (DESCRIBE QUERY analyzes it, runs
    nothing), or None when Spark cannot resolve it (an input not built yet)."""
    try:
        _, table = adapter.execute(f"describe query {sql.strip().rstrip(';')}", fetch=True)
    except Exception:  # noqa: BLE001 - the estimator then names the columns itself
        return None
    return [row[0] for row in table]
