"""Column groups chosen from the dbt graph: the columns of a table that the models reading it
group, deduplicate, partition or join on together (Oracle's ``DBMS_STATS.SEED_COL_USAGE``, read
from the project's SQL instead of a watched workload).

Each downstream model's SQL is parsed with sqlglot (Spark dialect). In every SELECT that reads the
table, each multi-column GROUP BY, SELECT DISTINCT, window PARTITION BY and multi-column join key
(the equalities of one join between the table's columns and another relation's) that names two or
more of the table's columns is a use of that group. The groups are ranked by how many uses they
have, then by size, and the most used are kept.

>>> sql = '''select o.customer_id, o.status, count(*) from shop.orders o group by o.customer_id, o.status'''
>>> choose_column_groups("shop", "orders", ["order_id", "customer_id", "status"], [("by_status", sql)], 10)
[{'columns': ['customer_id', 'status'], 'models': ['by_status']}]
"""

from __future__ import annotations

import json
import re
from collections import Counter
from typing import Any, Iterable, Optional

import sqlglot
from sqlglot import exp
from sqlglot.errors import SqlglotError


def choose_column_groups(schema: str, table: str, columns: list[str], models: Iterable[tuple[str, str]],
                         limit: int) -> list[dict[str, Any]]:
    """The groups of ``schema.table``'s ``columns`` (in the table's order) that ``models`` ((name,
    SQL) pairs) use, at most ``limit``: [{columns, models}], the most used first. SQL that does not
    parse is skipped."""
    order = {column.lower(): index for index, column in enumerate(columns)}
    uses: Counter = Counter()
    users: dict[tuple, list[str]] = {}
    for model, sql in models:
        try:
            tree = sqlglot.parse_one(sql, read="spark")
        except SqlglotError:
            continue
        for group in _groups_in(tree, schema.lower(), table.lower(), set(order)):
            key = tuple(sorted(group, key=order.__getitem__))
            uses[key] += 1
            if model not in users.setdefault(key, []):
                users[key].append(model)
    ranked = sorted(uses, key=lambda key: (-uses[key], -len(key), [order[c] for c in key]))
    names = {column.lower(): column for column in columns}
    return [{"columns": [names[c] for c in key], "models": users[key]} for key in ranked[:limit]]


def _groups_in(tree: exp.Expression, schema: str, table: str, columns: set[str]) -> Iterable[frozenset]:
    passed = _passthrough_ctes(tree, schema, table, columns)
    for select in tree.find_all(exp.Select):
        aliases = _aliases_of(select, schema, table, passed)
        if not aliases:
            continue
        only_source = len(_sources(select)) == 1

        def of_table(node: exp.Expression) -> Optional[tuple[str, str]]:
            """(the alias it is read under, the table's column) of a column of the table."""
            if not isinstance(node, exp.Column):
                return None
            qualifier = node.table.lower() or (next(iter(aliases)) if only_source else "")
            column = aliases.get(qualifier, {}).get(node.name.lower())
            return (qualifier, column) if column else None

        keyed = []
        group = select.args.get("group")
        if group is not None:
            keyed.append(group.expressions)
        if select.args.get("distinct") is not None:
            keyed.append([projection.unalias() for projection in select.expressions])
        for window in select.find_all(exp.Window):
            keyed.append(window.args.get("partition_by") or [])
        for join in select.args.get("joins") or []:
            keyed.append(_join_keys(join.args.get("on"), of_table))
        for keys in keyed:  # a group is of one row: the columns of one alias (a self-join reads two rows)
            by_alias: dict[str, set] = {}
            for found in filter(None, map(of_table, keys)):
                by_alias.setdefault(found[0], set()).add(found[1])
            yield from (frozenset(names) for names in by_alias.values() if len(names) >= 2)


def _join_keys(condition: Optional[exp.Expression], of_table) -> list[exp.Column]:
    """The table's columns that a join's ON equates with another relation's columns."""
    if condition is None:
        return []
    keys = []
    for equality in condition.flatten() if isinstance(condition, exp.And) else [condition]:
        if isinstance(equality, exp.EQ) and isinstance(equality.this, exp.Column) and isinstance(equality.expression, exp.Column):
            mine = [side for side in (equality.this, equality.expression) if of_table(side)]
            if len(mine) == 1:
                keys.append(mine[0])
    return keys


def _sources(select: exp.Select) -> list[exp.Expression]:
    from_ = select.args.get("from_")
    return ([from_.this] if from_ else []) + [join.this for join in select.args.get("joins") or []]


def _aliases_of(select: exp.Select, schema: str, table: str, passed: dict[str, dict[str, str]]) -> dict[str, dict[str, str]]:
    """The names the SELECT reads the table under (its alias, or its name), directly or through a
    CTE that passes its columns on, each with {column name there: the table's column}."""
    found = {}
    for source in _sources(select):
        if not isinstance(source, exp.Table):
            continue
        name = source.name.lower()
        if name == table and source.db.lower() in ("", schema) and name not in passed:
            found[(source.alias or source.name).lower()] = passed[""]
        elif name in passed and name and not source.db:
            found[(source.alias or source.name).lower()] = passed[name]
    return found


def _passthrough_ctes(tree: exp.Expression, schema: str, table: str, columns: set[str]) -> dict[str, dict[str, str]]:
    """{CTE name: {its column: the table's column}} for each CTE that selects the table's columns
    as they are (``select * from t``, ``select a, b as c from t``: a model's usual first CTE), and
    the table itself under ''."""
    passed: dict[str, dict[str, str]] = {"": {column: column for column in columns}}
    for cte in tree.find_all(exp.CTE):
        body = cte.this
        if not isinstance(body, exp.Select) or len(_sources(body)) != 1 or not isinstance(_sources(body)[0], exp.Table):
            continue
        source = _sources(body)[0]
        name = source.name.lower()
        inner = (passed[""] if name == table and source.db.lower() in ("", schema)
                 else passed.get(name) if not source.db else None)
        if inner is None:
            continue
        mapping = {}
        for projection in body.expressions:
            if isinstance(projection, exp.Star):
                mapping.update(inner)
            elif isinstance(projection.unalias(), exp.Column) and projection.unalias().name.lower() in inner:
                mapping[projection.alias_or_name.lower()] = inner[projection.unalias().name.lower()]
        if mapping:
            passed[cte.alias_or_name.lower()] = mapping
    return passed


_REF = re.compile(r"""\{\{\s*ref\(\s*(?:['"][^'"]+['"]\s*,\s*)?['"]([^'"]+)['"]\s*(?:,[^)]*)?\)\s*\}\}""")
_SOURCE = re.compile(r"""\{\{\s*source\(\s*['"]([^'"]+)['"]\s*,\s*['"]([^'"]+)['"]\s*\)\s*\}\}""")
_JINJA = re.compile(r"\{\{.*?\}\}|\{%.*?%\}|\{#.*?#\}", re.DOTALL)


def resolved_sql(raw: str, refs: dict[str, str], sources: dict[tuple[str, str], str]) -> str:
    """A model's raw code with its ``ref()`` and ``source()`` calls replaced by the relations they
    name (``refs``: model name to relation; ``sources``: (source, table) to relation) and any other
    Jinja left out: what a model not compiled yet (in a ``dbt build``, the models below the one
    being built) offers to read.

    >>> resolved_sql("{{ config(x=1) }}select a from {{ ref('orders') }} join {{ source('raw', 'c') }}",
    ...              {"orders": "shop.orders"}, {("raw", "c"): "raw.customers"})
    'select a from shop.orders join raw.customers'
    """
    text = _REF.sub(lambda match: refs.get(match.group(1), match.group(0)), raw)
    text = _SOURCE.sub(lambda match: sources.get((match.group(1), match.group(2)), match.group(0)), text)
    return _JINJA.sub("", text)


# The adapter methods of this concept (registered by dbt_analyze.adapter_methods).


def dbt_analyze_choose_column_groups(adapter: Any, payload_json: str) -> list[dict[str, Any]]:
    """payload: schema, table, columns (the table's, in order), models ([{name, sql (compiled, or
    None), raw}]), refs ({model name: relation}) and sources ([[source, table, relation]]) to
    resolve raw code with, limit. Returns choose_column_groups'."""
    payload = json.loads(payload_json)
    refs = payload.get("refs") or {}
    sources = {(source, table): relation for source, table, relation in payload.get("sources") or []}
    models = [(model["name"], model.get("sql") or resolved_sql(model.get("raw") or "", refs, sources))
              for model in sorted(payload["models"], key=lambda model: model["name"])]
    return choose_column_groups(payload["schema"], payload["table"], payload["columns"], models, int(payload["limit"]))
