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
import math
from decimal import Decimal
from typing import Any, Optional

import sqlglot
from sqlglot import exp
from sqlglot.errors import SqlglotError
from sqlglot.optimizer.qualify import qualify
from sqlglot.optimizer.simplify import simplify

from dbt_analyze.column_stats import ColumnStats, as_number, collation_key, format_value, lowest_accuracy, parse_value
from dbt_analyze.function_rules import FunctionRules, _cast
from dbt_analyze.selectivity import equality_share, range_share
from dbt_analyze.spark_naming import FUNCTION_NAMES, name_as_spark_does, spark_arguments
from dbt_analyze.spark_types import INTEGER_DECIMALS, INTEGER_RANKS, base_type, decimal_precision, fixed_width

ARITHMETIC = ("+", "-", "*", "/", "%", "div")


class EstimateError(ValueError):
    """SQL that cannot be read; the message says why."""


@dataclasses.dataclass
class RelationStats:
    """A relation's row count (None: unknown) and its columns' statistics, in output order."""

    row_count: Optional[float]
    columns: dict[str, ColumnStats]
    row_accuracy: Optional[str] = "accurate"

    @classmethod
    def from_statistics(cls, schema: str, name: str, table: dict) -> "RelationStats":
        """From the rows of the statistics tables: ``table`` has row_count, columns (column_statistics
        rows), histograms and top_values (per column name, lists of rows)."""
        rows = table.get("row_count")
        columns = {}
        for row in table.get("columns", []):
            column = row["column_name"].lower()
            data_type = row.get("data_type")
            non_null = (rows or 0) - (row.get("null_count") or 0)
            histogram = [{"lower": as_number(parse_value(bin_["lower_bound"], data_type)),
                          "upper": as_number(parse_value(bin_["upper_bound"], data_type)),
                          "row_count": bin_["row_count"], "distinct_count": bin_.get("distinct_count")}
                         for bin_ in table.get("histograms", {}).get(column, [])]
            if any(bin_["lower"] is None or bin_["upper"] is None for bin_ in histogram):
                histogram = []
            top_values = [{"value": item["value"], "share": item["frequency"] / non_null}
                          for item in table.get("top_values", {}).get(column, []) if non_null > 0]
            stats = ColumnStats.from_row(row, rows, histogram or None, top_values or None)
            columns[column] = stats.replace(derived_from=(f"{schema}.{name}.{column}",))
        return cls(rows, columns)

    def lowered(self, accuracy: Optional[str]) -> "RelationStats":
        return dataclasses.replace(self, columns={name: stats.replace(accuracy=lowest_accuracy(stats.accuracy, accuracy))
                                                  for name, stats in self.columns.items()})


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


def _range_relation(call: exp.Anonymous) -> RelationStats:
    """range(end), range(start, end[, step]): a bigint column `id` of distinct values."""
    try:
        arguments = [int(argument.name) if not isinstance(argument, exp.Neg) else -int(argument.this.name)
                     for argument in call.expressions[:3]]
    except (AttributeError, ValueError):
        return RelationStats(None, {"id": ColumnStats.unknown("bigint")}, None)
    start, end, step = (0, *arguments, 1) if len(arguments) == 1 else (*arguments, 1)[:3]
    rows = max(math.ceil((end - start) / step), 0) if step else 0
    last = start + (rows - 1) * step
    return RelationStats(rows, {"id": ColumnStats("bigint", 0.0, rows, min(start, last) if rows else None,
                                                  max(start, last) if rows else None, 8, 8)})


class _Estimator:
    def __init__(self, inputs: dict[tuple[str, str], RelationStats], rules: FunctionRules):
        self.inputs = inputs
        self.rules = rules

    # --- relations ---------------------------------------------------------------------------

    def query(self, node: exp.Expression, ctes: dict[str, RelationStats]) -> RelationStats:
        ctes = dict(ctes)
        with_ = node.args.get("with_")
        for cte in (with_.expressions if with_ else []):
            ctes[cte.alias_or_name.lower()] = self.query(cte.this, ctes)
        if isinstance(node, exp.Subquery):
            return self.query(node.this, ctes)
        if isinstance(node, exp.Union):
            return self.union(node, ctes)
        if isinstance(node, (exp.Except, exp.Intersect)):
            return self.difference(node, ctes)
        if not isinstance(node, exp.Select):
            return RelationStats(None, {}, None)
        scope = {}
        from_ = node.args.get("from_")
        sources = ([from_.this] if from_ else []) + [join.this for join in node.args.get("joins") or []]
        for source in sources:
            scope[source.alias_or_name.lower()] = self.source(source, ctes)
        if node.args.get("sample") is not None and len(scope) == 1:  # FROM t a TABLESAMPLE (...)
            alias = next(iter(scope))
            scope[alias] = _sample(scope[alias], node.args["sample"])
        if not scope:  # SELECT without FROM: one row
            rows, row_accuracy = 1, "accurate"
        else:
            rows = scope[next(iter(scope))].row_count if len(scope) == 1 else None
            row_accuracy = scope[next(iter(scope))].row_accuracy if len(scope) == 1 else None
        if len(scope) > 1:
            # a join: rows from the join keys' distinct counts (low accuracy); columns keep bounds
            # and distinct counts of their table (upper bounds now), null fractions are unknown
            rows = self.join_rows(node, scope)
            row_accuracy = "low" if rows is not None else None
            scope = {alias: dataclasses.replace(relation, row_count=None, columns=_upper_bounds(relation.columns))
                     for alias, relation in scope.items()}
        where = node.args.get("where")
        if where is not None:
            scope, rows, row_accuracy = self.filter(scope, where.this, rows, row_accuracy)
        group = node.args.get("group")
        groups: dict[str, ColumnStats] = {}
        if group is not None:
            # GROUP BY ALL: by every selected expression without an aggregate, as Spark groups
            keys = ([projection.unalias() for projection in node.expressions if not projection.find(exp.AggFunc)]
                    if group.args.get("all") else group.expressions)
            rows, row_accuracy, groups = self.group(scope, keys, rows, row_accuracy)
        aggregated = group is None and _aggregates(node)
        if aggregated:  # an aggregate without GROUP BY: one row, whatever the input
            rows, row_accuracy = 1, "accurate"
        if node.args.get("having") is not None:
            rows, row_accuracy = None, None
        columns = {}
        for projection in node.expressions:
            name = projection.alias_or_name.lower()
            if name == "*":  # a struct's fields (s.*): which columns they are is not known here
                continue
            key = projection.unalias().sql("spark")
            stats = groups.get(key) or self.expression(projection.unalias(), scope, rows, grouped=group is not None or aggregated)
            columns[name] = _with_rows(stats, rows, row_accuracy)
        if node.args.get("distinct") is not None and rows is not None:
            counts = [stats.distinct_count for stats in columns.values()]
            rows = None if None in counts else min(rows, math.prod(max(count, 1) for count in counts))
            row_accuracy = "low"
        limit = node.args.get("limit")
        if limit is not None and rows is not None:
            try:
                rows = min(rows, int(limit.expression.name))
            except (AttributeError, ValueError):
                rows = None
            row_accuracy = lowest_accuracy(row_accuracy, "low")
        return RelationStats(rows, columns, row_accuracy)

    def join_rows(self, node: exp.Select, scope: dict[str, RelationStats]) -> Optional[float]:
        """Rows of a SELECT's joins, in order: an equi-join matches |L|·|R| / max(the keys' distinct
        counts) rows (the textbook estimate, Spark's CBO's too), an outer join keeps at least its
        preserved sides, a cross join |L|·|R|. None where a count or a key is not known (semi and
        anti joins, conditions without an equality between the two sides)."""
        aliases = list(scope)
        joins = node.args.get("joins") or []
        if len(aliases) != len(joins) + 1:  # a source named twice
            return None
        rows = scope[aliases[0]].row_count
        for index, join in enumerate(joins):
            right, side, kind = scope[aliases[index + 1]], join.args.get("side"), join.args.get("kind")
            if rows is None or right.row_count is None or kind in ("SEMI", "ANTI"):
                return None
            distinct = self._join_key_distinct(join, scope, aliases[:index + 1], aliases[index + 1], node.args.get("where"))
            if distinct is None and join.args.get("on") is None and not join.args.get("using"):
                rows *= right.row_count  # a cross join
                continue
            if distinct is None:
                return None
            matched = rows * right.row_count / max(distinct, 1)
            rows = max(matched, rows if side in ("LEFT", "FULL") else 0, right.row_count if side in ("RIGHT", "FULL") else 0)
        return rows

    @staticmethod
    def _join_key_distinct(join: exp.Join, scope, left_aliases: list[str], right_alias: str,
                           where: Optional[exp.Where]) -> Optional[float]:
        """The larger distinct count of the two sides' keys, of the most selective key pair. The keys
        of a join without ON or USING (FROM a, b WHERE a.x = b.y) are the WHERE's equalities."""
        pairs = []
        for name in join.args.get("using") or []:
            left = next((scope[alias].columns.get(name.name.lower()) for alias in left_aliases
                         if name.name.lower() in scope[alias].columns), None)
            pairs.append((left, scope[right_alias].columns.get(name.name.lower())))
        condition = join.args.get("on")
        if condition is None and not join.args.get("using") and where is not None:
            condition = where.this
        for equality in (condition.flatten() if isinstance(condition, exp.And) else [condition]) if condition else []:
            if not (isinstance(equality, exp.EQ) and isinstance(equality.this, exp.Column) and isinstance(equality.expression, exp.Column)):
                continue
            columns = {column.table.lower(): column.name.lower() for column in (equality.this, equality.expression)}
            left_alias = next((alias for alias in columns if alias in left_aliases), None)
            if right_alias in columns and left_alias:
                pairs.append((scope[left_alias].columns.get(columns[left_alias]), scope[right_alias].columns.get(columns[right_alias])))
        counts = [max(left.distinct_count, right.distinct_count) for left, right in pairs
                  if left and right and left.distinct_count is not None and right.distinct_count is not None]
        return max(counts) if counts else None

    def source(self, node: exp.Expression, ctes: dict[str, RelationStats]) -> RelationStats:
        if isinstance(node, exp.Table) and isinstance(node.this, exp.Anonymous) and node.this.name.lower() == "range":
            return _range_relation(node.this)
        if isinstance(node, exp.Table):
            name = node.name.lower()
            if not node.db and name in ctes:
                return ctes[name]
            found = self.inputs.get((node.db.lower(), name))
            if found is not None and node.args.get("sample") is not None:
                return _sample(found, node.args["sample"])
            return found if found is not None else RelationStats(None, {}, None)
        if isinstance(node, exp.Values):
            return self.values(node)
        if isinstance(node, (exp.Subquery, exp.Select, exp.Union)):
            return self.query(node, ctes)
        return RelationStats(None, {}, None)

    def values(self, node: exp.Values) -> RelationStats:
        """An inline table, VALUES (1, 'a'), (2, NULL): its rows, and each column's statistics from
        its constants (a column with anything else is unknown)."""
        names = [column.name.lower() for column in node.args["alias"].columns] if node.args.get("alias") else []
        rows = [list(row.expressions) if isinstance(row, exp.Tuple) else [row] for row in node.expressions]
        columns = {}
        for index, name in enumerate(names):
            cells = [self.expression(row[index], {}, 1) if index < len(row) else ColumnStats.unknown() for row in rows]
            types = {cell.data_type for cell in cells if cell.data_type}
            if not all(cell.constant for cell in cells):
                columns[name] = ColumnStats.unknown(types.pop() if len(types) == 1 else None)
                continue
            present = [cell for cell in cells if cell.null_fraction == 0]
            values = [cell.min for cell in present]
            try:
                low, high = min(values, default=None), max(values, default=None)
            except TypeError:
                low = high = None
            columns[name] = ColumnStats(
                data_type=types.pop() if len(types) == 1 else None, null_fraction=1 - len(present) / len(cells),
                distinct_count=len({collation_key(value, cell.data_type) for value, cell in zip(values, present)}), min=low, max=high,
                avg_len=sum(cell.avg_len for cell in present) / len(present) if present else None,
                max_len=max((cell.max_len for cell in present), default=None))
        return RelationStats(len(rows), columns)

    def union(self, node: exp.Union, ctes: dict[str, RelationStats]) -> RelationStats:
        left, right = self.query(node.left, ctes), self.query(node.right, ctes)
        distinct = node.args.get("distinct")
        rows = None if None in (left.row_count, right.row_count) or distinct else left.row_count + right.row_count
        columns = {}
        for (name, a), b in zip(left.columns.items(), right.columns.values()):
            stats = self.rules.apply("coalesce", [a.replace(null_fraction=None), b.replace(null_fraction=None)], rows)
            if stats is not None and None not in (a.null_fraction, b.null_fraction, left.row_count, right.row_count) and rows:
                stats.null_fraction = (a.null_fraction * left.row_count + b.null_fraction * right.row_count) / rows
            columns[name] = stats.replace(accuracy=lowest_accuracy(stats.accuracy, "medium")) if stats else ColumnStats.unknown()
        return RelationStats(rows, columns, lowest_accuracy(left.row_accuracy, right.row_accuracy) if rows else None)

    def difference(self, node: exp.SetOperation, ctes: dict[str, RelationStats]) -> RelationStats:
        """EXCEPT and INTERSECT keep some of the left side's rows: its columns, whose distinct counts
        and bounds are upper bounds now (low accuracy); how many rows is not known."""
        return RelationStats(None, _upper_bounds(self.query(node.left, ctes).columns), None)

    def filter(self, scope: dict[str, RelationStats], condition: exp.Expression, rows: Optional[float],
               row_accuracy: Optional[str]):
        """Rows scaled by the predicates' selectivity (independent predicates); filtered columns narrowed."""
        selectivity, accuracy, narrowed = 1.0, "accurate", {}
        conjuncts = list(condition.flatten()) if isinstance(condition, exp.And) else [condition]
        for predicate in conjuncts:
            found = self.predicate(scope, predicate.unnest())
            if found is None or not self.rules.allows(found[1]):
                selectivity = None
                break
            fraction, level, column, stats = found
            selectivity *= fraction
            accuracy = lowest_accuracy(accuracy, level)
            if column is not None:
                narrowed[column] = stats
        if selectivity is None or rows is None:
            unknown = {alias: dataclasses.replace(relation, row_count=None, columns={
                name: ColumnStats.unknown(stats.data_type, stats.derived_from) for name, stats in relation.columns.items()})
                for alias, relation in scope.items()}
            return unknown, None, None
        if len({key for key in narrowed}) > 1:
            accuracy = lowest_accuracy(accuracy, "medium")  # predicates on several columns: independence assumed
        filtered_rows = rows * selectivity
        out = {}
        for alias, relation in scope.items():
            columns = {}
            for name, stats in relation.columns.items():
                if (alias, name) in narrowed:
                    columns[name] = narrowed[(alias, name)].replace(accuracy=lowest_accuracy(stats.accuracy, accuracy))
                else:
                    columns[name] = _sampled(stats, rows, selectivity)
                if filtered_rows == 0:  # no row is left (id > its max): no value, so no bounds
                    columns[name] = columns[name].replace(distinct_count=0, min=None, max=None, histogram=None, top_values=None)
            out[alias] = dataclasses.replace(relation, row_count=filtered_rows, columns=columns)
        return out, filtered_rows, lowest_accuracy(row_accuracy, accuracy)

    def group(self, scope, keys: list[exp.Expression], rows: Optional[float], row_accuracy: Optional[str]):
        """Rows = the keys' distinct combinations (NULL is a group); each key once per group."""
        groups, counts = {}, []
        for key in keys:
            stats = self.expression(key, scope, rows)
            if stats.distinct_count is None or stats.null_fraction is None:
                counts = None
                groups[key.sql("spark")] = stats
                continue
            if counts is not None:
                counts.append(stats.distinct_count + (1 if stats.null_fraction > 0 else 0))
            groups[key.sql("spark")] = stats
        grouped_rows = None if counts is None or rows is None else min(math.prod(counts), rows)
        accuracy = lowest_accuracy(row_accuracy, *(s.accuracy for s in groups.values()), "low" if len(keys) > 1 else "accurate")
        for key, stats in groups.items():
            if grouped_rows:
                groups[key] = stats.replace(null_fraction=(1 / grouped_rows if stats.null_fraction else 0.0),
                                            histogram=None, top_values=None,
                                            accuracy=lowest_accuracy(stats.accuracy, accuracy))
        return grouped_rows, accuracy if grouped_rows is not None else None, groups

    # --- predicates ----------------------------------------------------------------------------

    def predicate(self, scope, node: exp.Expression):
        """(fraction of rows kept, accuracy, (alias, column), the column's statistics after it) or None.
        The column is None for a predicate that narrows no one column (a constant, an OR over
        several columns, an equality between two sources' columns)."""
        constant = _constant_truth(node)
        if constant is not None:  # WHERE 1 = 1 (templated SQL), WHERE false
            return (1.0 if constant else 0.0), "accurate", None, None
        if isinstance(node, exp.Or):
            return self.disjunction(scope, node)
        if isinstance(node, exp.EQ) and isinstance(node.this, exp.Column) and isinstance(node.expression, exp.Column):
            return self._equi_join(scope, node)
        flag = node.this.unnest() if isinstance(node, exp.Not) else node
        if isinstance(flag, exp.Column):  # WHERE paid is paid = true, WHERE NOT paid is paid = false
            _, stats = self._column(scope, flag)
            if stats is None or base_type(stats.data_type) != "boolean":
                return None
            return self.predicate(scope, exp.EQ(this=flag.copy(), expression=exp.Boolean(this=flag is node)))
        if isinstance(node, exp.Not) and isinstance(flag, exp.Is) and isinstance(flag.expression, exp.Null):
            column, stats = self._column(scope, flag.this)
            if stats is None or stats.null_fraction is None:
                return None
            return 1 - stats.null_fraction, "accurate", column, stats.replace(null_fraction=0.0)
        if isinstance(node, exp.Not):  # NOT p keeps the rows where p is false, not those where p is NULL
            if isinstance(flag, exp.In) and any(isinstance(value, exp.Null) for value in flag.expressions):
                return 0.0, "accurate", None, None  # x NOT IN (.., NULL) is never true
            found = self.predicate(scope, flag)
            if found is None or found[2] is None:
                return None
            fraction, level, (alias, name), _ = found
            stats = scope[alias].columns[name]
            tested = flag.this.unnest() if isinstance(flag, exp.Not) else flag
            unknown = 0.0 if isinstance(tested, exp.Is) else stats.null_fraction  # x IS [NOT] NULL is never NULL
            if unknown is None:
                return None
            return (max(1 - unknown - fraction, 0.0), level, (alias, name),
                    stats.replace(null_fraction=0.0, histogram=None, top_values=None))
        if isinstance(node, exp.Is) and isinstance(node.expression, exp.Null):
            column, stats = self._column(scope, node.this)
            if stats is None or stats.null_fraction is None:
                return None
            return stats.null_fraction, "accurate", column, ColumnStats(stats.data_type, 1.0, 0, derived_from=stats.derived_from)
        if isinstance(node, exp.Between):
            column, stats = self._column(scope, node.this)
            low, high = (self._literal(node.args.get(side), stats) for side in ("low", "high"))
            if stats is None or low is None or high is None:
                return None
            return range_share(column, stats, low, high, True, True)
        if isinstance(node, exp.In) and not node.args.get("query"):
            column, stats = self._column(scope, node.this)
            # NULL in the list matches no row
            values = [self._literal(value, stats) for value in node.expressions if not isinstance(value, exp.Null)]
            if stats is None or None in values:
                return None
            found = [equality_share(stats, value) for value in dict.fromkeys(values)]
            if None in found:
                return None
            fraction = sum(share for share, _ in found) * (1 - (stats.null_fraction or 0))
            present = [value for value, (share, _) in zip(dict.fromkeys(values), found) if share > 0]
            return fraction, lowest_accuracy(*(level for _, level in found)), column, stats.replace(
                null_fraction=0.0, distinct_count=len(present), min=min(present, default=None),
                max=max(present, default=None), histogram=None, top_values=None)
        comparisons = {exp.EQ: "=", exp.NEQ: "<>", exp.GT: ">", exp.GTE: ">=", exp.LT: "<", exp.LTE: "<="}
        if type(node) in comparisons:
            operator, left, right = comparisons[type(node)], node.this, node.expression
            if isinstance(left, exp.Literal) or isinstance(left, exp.Boolean):
                left, right = right, left
                operator = {">": "<", ">=": "<=", "<": ">", "<=": ">="}.get(operator, operator)
            column, stats = self._column(scope, left)
            value = self._literal(right, stats)
            if stats is None or value is None:
                return None
            non_null = 1 - (stats.null_fraction or 0)
            if operator in ("=", "<>"):
                found = equality_share(stats, value)
                if found is None:
                    return None
                share, level = found
                if operator == "=":
                    return share * non_null, level, column, ColumnStats(
                        stats.data_type, 0.0, 1 if share else 0, value, value, stats.avg_len, stats.max_len,
                        derived_from=stats.derived_from)
                return (1 - share) * non_null, level, column, stats.replace(
                    null_fraction=0.0, distinct_count=max((stats.distinct_count or 1) - 1, 0), histogram=None, top_values=None)
            low, high = (value, None) if operator in (">", ">=") else (None, value)
            return range_share(column, stats, low, high, operator == ">=", operator == "<=")
        return None

    def disjunction(self, scope, node: exp.Or):
        """p OR q: on one column, the sum of the shares (exact for different values; ranges that
        overlap count twice, so at most the non-null rows); on several, independent predicates."""
        found = [self.predicate(scope, part.unnest()) for part in node.flatten()]
        if None in found:
            return None
        level = lowest_accuracy(*(item[1] for item in found))
        columns = {item[2] for item in found}
        if len(columns) == 1 and None not in columns:
            (alias, name), = columns
            stats = scope[alias].columns[name]
            fraction = min(sum(item[0] for item in found), 1 - (stats.null_fraction or 0))
            kept = [item[3] for item in found if item[0] > 0]
            try:
                low = min((item.min for item in kept), default=None) if None not in (item.min for item in kept) else None
                high = max((item.max for item in kept), default=None) if None not in (item.max for item in kept) else None
            except TypeError:
                low = high = None
            counts = [item.distinct_count for item in kept]
            distinct = None if None in counts else min(sum(counts), stats.distinct_count or sum(counts))
            return fraction, level, (alias, name), stats.replace(
                null_fraction=0.0, distinct_count=distinct, min=low, max=high, histogram=None, top_values=None)
        fraction = 1 - math.prod(1 - item[0] for item in found)
        return fraction, lowest_accuracy(level, "medium"), None, None

    @staticmethod
    def _equi_join(scope, node: exp.EQ):
        """a.x = b.y between two sources keeps the rows the join's estimate kept (join_rows takes a
        join's keys from the WHERE when it has no ON: FROM a, b WHERE a.x = b.y); on one source's
        two columns, unknown."""
        aliases = [column.table.lower() for column in (node.this, node.expression)]
        if len(scope) < 2 or "" in aliases or aliases[0] == aliases[1] or not set(aliases) <= set(scope):
            return None
        return 1.0, "low", None, None

    def _column(self, scope, node: exp.Expression):
        if not isinstance(node, exp.Column):
            return None, None
        alias = node.table.lower()
        relation = scope.get(alias) if alias else next(iter(scope.values()), None)
        stats = relation.columns.get(node.name.lower()) if relation else None
        if stats is None or stats.accuracy is None:
            return None, None
        return (alias or next(iter(scope)), node.name.lower()), stats

    @staticmethod
    def _literal(node: Optional[exp.Expression], stats: Optional[ColumnStats]) -> Any:
        if stats is None or node is None:
            return None
        if isinstance(node, (exp.Cast, exp.TryCast)):
            node = node.this
        if isinstance(node, exp.Boolean):
            return node.this
        if isinstance(node, exp.Literal):
            return parse_value(node.this, stats.data_type)
        return None

    # --- expressions ---------------------------------------------------------------------------

    def expression(self, node: exp.Expression, scope, rows: Optional[float], grouped: bool = False) -> ColumnStats:
        """The statistics of an expression's values, by the handler of its class (EXPRESSIONS: the
        nearest registered class of its class hierarchy); unknown for expressions without one."""
        node = node.unalias()
        handler = next((EXPRESSIONS[kind] for kind in type(node).__mro__ if kind in EXPRESSIONS), None)
        found = handler(self, node, scope, rows, grouped) if handler else None
        return found if found is not None else ColumnStats.unknown(derived_from=_sources(node, scope))

    def column(self, node: exp.Column, scope, rows, grouped) -> ColumnStats:
        _, stats = self._column(scope, node)
        if stats is None:
            return ColumnStats.unknown()
        if grouped:  # a column outside the GROUP BY keys in an aggregate query
            return ColumnStats.unknown(stats.data_type, stats.derived_from)
        return stats

    def literal(self, node: exp.Expression, scope, rows, grouped) -> ColumnStats:
        if isinstance(node, exp.Null):
            return ColumnStats.literal(None, None)
        if isinstance(node, exp.Boolean):
            return ColumnStats.literal(node.this, "boolean")
        if isinstance(node, exp.Var) or node.is_string:
            return ColumnStats.literal(node.name if isinstance(node, exp.Var) else node.this, "string")
        text = node.this
        if text.lstrip("-").isdigit():
            return ColumnStats.literal(int(text), "int" if abs(int(text)) < 2 ** 31 else "bigint")
        if "e" in text.lower():  # Spark reads 1e3 and 1.5E-2 as doubles
            return ColumnStats.literal(float(text), "double")
        return ColumnStats.literal(Decimal(text), f"decimal({len(text.replace('.', '').lstrip('-'))},{len(text.split('.')[-1])})")

    def function(self, node: exp.Expression, scope, rows, grouped) -> Optional[ColumnStats]:
        """A function or operator of Spark's, by its rule; NOT, IS and IN first by their special cases."""
        if isinstance(node, exp.Not) and isinstance(node.this, exp.Is):
            return self.call("isnotnull", [node.this.this], scope, rows, grouped)
        if isinstance(node, exp.Is) and isinstance(node.expression, exp.Null):
            return self.call("isnull", [node.this], scope, rows, grouped)
        tested = node.this.unnest() if isinstance(node, exp.Not) else node
        if (not grouped and isinstance(tested, exp.In) and not tested.args.get("query")
                and any(isinstance(value, exp.Null) for value in tested.expressions)):
            return self._in_with_null(tested, tested is node, scope)
        # operators that are no function of Spark's (a struct's field, `struct(a)`'s a AS a) have no name
        name = FUNCTION_NAMES.get(type(node)) or (node.name if isinstance(node, exp.Anonymous)
                                                  else node.sql_name() if isinstance(node, exp.Func) else None)
        return self.call(name.lower(), spark_arguments(node), scope, rows, grouped) if name else None

    def _in_with_null(self, node: exp.In, value: bool, scope) -> ColumnStats:
        """``x IN (.., NULL)`` is true where x is one of the other values and NULL on every other
        row, never false (``NOT IN``: false there): one value, on the share of the rows that the
        filter estimate of ``x IN (the other values)`` gives."""
        others = [v.copy() for v in node.expressions if not isinstance(v, exp.Null)]
        found = self.predicate(scope, exp.In(this=node.this.copy(), expressions=others)) if others else (0.0, "accurate")
        share, accuracy = found[:2] if found else (None, "low")
        if share == 0:
            return ColumnStats.literal(None, "boolean").replace(accuracy=accuracy, constant=False, derived_from=_sources(node, scope))
        return ColumnStats.literal(value, "boolean").replace(null_fraction=None if share is None else 1 - share, accuracy=accuracy,
                                                             constant=False, derived_from=_sources(node, scope))

    def call(self, name: str, arguments: list[exp.Expression], scope, rows, grouped, output_type=None) -> ColumnStats:
        args = [self.expression(argument, scope, rows, grouped) for argument in arguments]
        if output_type is None and name in ARITHMETIC and len(args) == 2:
            output_type = arithmetic_type(name, *args)
        result = self.rules.apply(name, args, rows, output_type)
        if result is None:
            return ColumnStats.unknown(output_type, tuple(dict.fromkeys(s for a in args for s in a.derived_from)))
        return result

    def cast(self, node: exp.Expression, scope, rows, grouped) -> ColumnStats:
        target = node.to.sql("spark").lower()
        source = self.expression(node.this, scope, rows, grouped)
        if source.constant:
            value = format_value(source.min) if base_type(target) == "string" else _cast(source.min, target)
            return ColumnStats.literal(value, target) if value is not None or source.min is None else ColumnStats.unknown(target)
        if base_type(target) in ("string", "varchar", "char"):
            rule = "cast_to_string"
        elif _widens(source.data_type, target):
            rule = "cast_widening"
        else:
            rule = "cast_narrowing"
        result = self.rules.apply(rule, [source], rows, target)
        return result if result is not None else ColumnStats.unknown(target, source.derived_from)

    def conditional(self, node: exp.Expression, scope, rows, grouped) -> ColumnStats:
        if isinstance(node, exp.If):
            branches = [node.args.get("true"), node.args.get("false")]
        else:
            branches = [case.args.get("true") for case in node.args.get("ifs", [])] + [node.args.get("default")]
        args = [self.expression(branch, scope, rows, grouped) if branch is not None else ColumnStats.literal(None, None)
                for branch in branches]
        result = self.rules.apply("case", args, rows)
        if result is None:
            return ColumnStats.unknown(derived_from=_sources(node, scope))
        if all(arg.constant for arg in args):
            # literal branches: the distinct non-null literals (each branch assumed taken)
            values = {format_value(arg.min) for arg in args if arg.min is not None}
            result = result.replace(distinct_count=len(values), constant=False, derived_from=_sources(node, scope))
        result.null_fraction = 0.0 if all(arg.null_fraction == 0 for arg in args) else None
        return result

    def aggregate(self, node: exp.AggFunc, scope, rows) -> ColumnStats:
        if isinstance(node, exp.Count):
            return ColumnStats("bigint", 0.0, None, avg_len=8, max_len=8, derived_from=_sources(node, scope))
        return ColumnStats.unknown(derived_from=_sources(node, scope))


# The handler of each class of expression: a node's is that of the nearest class of its hierarchy
# listed here (TryCast is a Cast, Count an AggFunc, Not a Unary).
EXPRESSIONS = {
    exp.Paren: lambda self, node, scope, rows, grouped: self.expression(node.this, scope, rows, grouped),
    exp.Column: _Estimator.column,
    **{kind: _Estimator.literal for kind in (exp.Null, exp.Boolean, exp.Literal, exp.Var)},
    **{kind: _Estimator.cast for kind in (exp.Cast, exp.TryCast)},
    exp.AggFunc: lambda self, node, scope, rows, grouped: self.aggregate(node, scope, rows),
    **{kind: _Estimator.conditional for kind in (exp.Case, exp.If)},
    **{kind: _Estimator.function for kind in (exp.Func, exp.Binary, exp.Unary, exp.Between, exp.In)},
}


def _constant_truth(node: exp.Expression) -> Optional[bool]:
    """True or False for a condition without columns, subqueries or random functions that folds
    to a constant (1 = 1, true, NOT false, 1 > 2); NULL keeps no row, so it is False. Else None."""
    if node.find(exp.Column, exp.Select, exp.Rand, exp.Anonymous):
        return None
    folded = simplify(node.copy())
    if isinstance(folded, exp.Boolean):
        return folded.this
    return False if isinstance(folded, exp.Null) else None


def _aggregates(select: exp.Select) -> bool:
    """Whether a SELECT computes aggregates of its own (not a window's, not a subquery's)."""
    return any(function.find_ancestor(exp.Window, exp.Select) is select
               for projection in select.expressions for function in projection.find_all(exp.AggFunc))


def _sources(node: exp.Expression, scope) -> tuple:
    found = []
    for column in node.find_all(exp.Column):
        relation = scope.get(column.table.lower()) if column.table else None
        stats = relation.columns.get(column.name.lower()) if relation else None
        found.extend(stats.derived_from if stats else ())
    return tuple(dict.fromkeys(found))


def arithmetic_type(operator: str, left: ColumnStats, right: ColumnStats, ansi: bool = False) -> Optional[str]:
    """The type Spark gives ``left <operator> right`` of two numbers (None for other types): double
    with a double or a decimal, and for ``/``; a float with a float is a float, and with an integer
    too, but in ANSI mode (``ansi``: Spark 4's default and a Thrift server's; dbt-spark's sessions
    turn it off); else a decimal by Spark's precision rules (an integer literal counts its digits,
    an integer column as decimal(10,0) or (20,0)), else the wider integer; ``/`` of integers is double.

    >>> amount, two = ColumnStats("decimal(10,2)"), ColumnStats.literal(2, "int")
    >>> arithmetic_type("*", amount, two), arithmetic_type("+", amount, ColumnStats("bigint")), arithmetic_type("/", two, two)
    ('decimal(12,2)', 'decimal(23,2)', 'double')
    """
    bases = (base_type(left.data_type), base_type(right.data_type))
    if not all(base in INTEGER_RANKS or base in ("float", "double", "decimal") for base in bases):
        return None
    if "double" in bases or "float" in bases:
        other = bases[1] if bases[0] == "float" else bases[0]
        stays_float = "double" not in bases and operator != "/" and (other == "float" or (other in INTEGER_RANKS and not ansi))
        return "float" if stays_float else "double"
    if "decimal" not in bases:
        if operator == "/":
            return "double"
        return "bigint" if operator == "div" else max(bases, key=INTEGER_RANKS.get)
    (p1, s1), (p2, s2) = (_as_decimal(left), _as_decimal(right))
    if operator in ("+", "-"):
        scale = max(s1, s2)
        precision = max(p1 - s1, p2 - s2) + scale + 1
    elif operator == "*":
        precision, scale = p1 + p2 + 1, s1 + s2
    elif operator == "/":
        scale = max(6, s1 + p2 + 1)
        precision = p1 - s1 + s2 + scale
    elif operator == "%":
        scale = max(s1, s2)
        precision = min(p1 - s1, p2 - s2) + scale
    else:  # div
        return "bigint"
    if precision > 38:  # Spark keeps the integer digits and gives up scale, down to 6
        scale = max(38 - (precision - scale), min(scale, 6))
        precision = 38
    return f"decimal({precision},{scale})"


def _as_decimal(stats: ColumnStats) -> tuple[int, int]:
    """(precision, scale) of a number in decimal arithmetic, as Spark sees it."""
    base = base_type(stats.data_type)
    if base == "decimal":
        return decimal_precision(stats.data_type)
    if stats.constant and isinstance(stats.min, int):
        return len(str(abs(stats.min))), 0
    return INTEGER_DECIMALS[base]


def _widens(source: Optional[str], target: str) -> bool:
    """Whether every value of ``source`` is a value of ``target``."""
    source_base, target_base = base_type(source), base_type(target)
    if source_base == target_base and source_base != "decimal":
        return True
    if source_base in INTEGER_RANKS:
        return (target_base in INTEGER_RANKS and INTEGER_RANKS[target_base] >= INTEGER_RANKS[source_base]) \
            or target_base in ("double", "decimal") and (target_base == "double" or (fixed_width(target) or 0) >= 8)
    if source_base == "float":
        return target_base == "double"
    if source_base == "date":
        return target_base in ("timestamp", "timestamp_ntz")
    if source_base == "decimal" and target_base == "decimal":
        return source == target
    return False


def _upper_bounds(columns: dict[str, ColumnStats]) -> dict[str, ColumnStats]:
    """Columns of some rows of a relation, which ones not known (a join's, EXCEPT's): their distinct
    counts and bounds are upper bounds (low accuracy), their null fractions unknown."""
    return {name: stats.replace(null_fraction=None, histogram=None, top_values=None, accuracy=lowest_accuracy(stats.accuracy, "low"))
            for name, stats in columns.items()}


def _sample(relation: RelationStats, sample: exp.TableSample) -> RelationStats:
    """A relation under TABLESAMPLE: (P PERCENT) and (BUCKET x OUT OF y) keep rows at random,
    P% or 1/y of them; (N ROWS) is the first N rows, as a LIMIT."""
    rows = relation.row_count
    percent, size, buckets = (sample.args.get(key) for key in ("percent", "size", "bucket_denominator"))
    try:
        fraction = float(percent.name) / 100 if percent is not None else 1 / float(buckets.name) if buckets is not None else None
        limit = int(size.name) if size is not None and fraction is None else None
    except (AttributeError, ValueError, ZeroDivisionError):
        fraction = limit = None
    if rows is None or (fraction is None and limit is None):
        return RelationStats(None, _upper_bounds(relation.columns), None)
    if limit is not None:
        return dataclasses.replace(relation, row_count=min(rows, limit), row_accuracy=lowest_accuracy(relation.row_accuracy, "low"))
    fraction = min(max(fraction, 0.0), 1.0)
    return RelationStats(rows * fraction, {name: _sampled(stats, rows, fraction) for name, stats in relation.columns.items()},
                         lowest_accuracy(relation.row_accuracy, "medium") if fraction < 1 else relation.row_accuracy)


def _sampled(stats: ColumnStats, rows: float, selectivity: float) -> ColumnStats:
    """A column not in the filter after keeping ``selectivity`` of the rows at random: null
    fraction kept, distinct values that keep at least one row (each value holding rows/NDV rows)."""
    if stats.accuracy is None:
        return stats
    distinct = stats.distinct_count
    if distinct and rows:
        per_value = rows * (1 - (stats.null_fraction or 0)) / distinct
        distinct = distinct * (1 - (1 - selectivity) ** per_value)
    return stats.replace(distinct_count=distinct, histogram=None, top_values=None,
                         accuracy=lowest_accuracy(stats.accuracy, "medium" if selectivity < 1 else "accurate"))


def _with_rows(stats: ColumnStats, rows: Optional[float], row_accuracy: Optional[str]) -> ColumnStats:
    """Distinct count at most the non-null rows; accuracy no better than the row count's where it is used."""
    if stats.accuracy is None:
        return stats
    if rows is None:
        return stats.replace(null_fraction=None, accuracy=lowest_accuracy(stats.accuracy, "low"))
    distinct = stats.distinct_count
    if distinct is not None and stats.null_fraction is not None:
        distinct = min(distinct, rows * (1 - stats.null_fraction))
    return stats.replace(distinct_count=distinct, accuracy=lowest_accuracy(stats.accuracy, row_accuracy or "low"))


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
        summary = ", ".join(f"{levels.count(level)} {level}" for level in ("accurate", "high", "medium", "low", "unknown")
                            if level in levels)
        rows_text = "unknown" if relation.row_count is None else f"{round(relation.row_count):,}"
        messages.append(f"{label}: {len(found)} column(s) estimated ({summary}), rows {rows_text}")

    for model in models:
        visit(model, ())
    return rows, messages
