"""Predicates: the share of rows a WHERE keeps, and the filtered columns' statistics after it.

:class:`Predicates` is the part of the estimator (:mod:`dbt_analyze.estimate`) that reads a
condition: conjunctions as independent predicates, OR, NOT, IS [NOT] NULL, BETWEEN, IN and the
comparisons of a column with a constant, each share from :mod:`dbt_analyze.selectivity`.

>>> _constant_truth(exp.condition("1 = 1")), _constant_truth(exp.condition("x > 1"))
(True, None)
"""

from __future__ import annotations

import dataclasses
import math
from typing import Any, Optional

from sqlglot import exp
from sqlglot.optimizer.simplify import simplify

from dbt_analyze.column_stats import ColumnStats, lowest_accuracy, parse_value
from dbt_analyze.relations import RelationStats, column_in_scope
from dbt_analyze.selectivity import equality_share, range_share, rows_kept, sampled
from dbt_analyze.spark_types import base_type


class Predicates:
    """The estimator's filters; expects ``rules``."""

    def filter(self, scope: dict[str, RelationStats], condition: exp.Expression, rows: Optional[float],
               row_accuracy: Optional[str]):
        """Rows scaled by the predicates' selectivity (independent predicates); filtered columns narrowed."""
        selectivity, accuracy, narrowed, equalities = 1.0, "accurate", {}, {}
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
                if isinstance(predicate.unnest(), exp.EQ):
                    equalities[column] = fraction
        if selectivity is not None:
            selectivity *= _dependency_factor(scope, equalities)
        if selectivity is None or rows is None:
            unknown = {
                alias: dataclasses.replace(
                    relation,
                    row_count=None,
                    columns={
                        name: ColumnStats.unknown(stats.data_type, stats.derived_from)
                        for name, stats in relation.columns.items()
                    },
                )
                for alias, relation in scope.items()
            }
            return unknown, None, None
        if len({key for key in narrowed}) > 1:
            accuracy = lowest_accuracy(accuracy, "medium")  # predicates on several columns: independence assumed
        filtered_rows = rows_kept(rows, selectivity)
        out = {}
        for alias, relation in scope.items():
            columns = {}
            for name, stats in relation.columns.items():
                if (alias, name) in narrowed:
                    columns[name] = narrowed[(alias, name)].replace(accuracy=lowest_accuracy(stats.accuracy, accuracy))
                else:
                    columns[name] = sampled(stats, rows, selectivity)
                if filtered_rows == 0:  # no row is left (id > its max): no value, so no bounds
                    columns[name] = columns[name].replace(
                        distinct_count=0, min=None, max=None, histogram=None, top_values=None
                    )
            out[alias] = dataclasses.replace(relation, row_count=filtered_rows, columns=columns)
        return out, filtered_rows, lowest_accuracy(row_accuracy, accuracy)

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
            return _equi_join(scope, node)
        flag = node.this.unnest() if isinstance(node, exp.Not) else node
        if isinstance(flag, exp.Column):  # WHERE paid is paid = true, WHERE NOT paid is paid = false
            _, stats = column_in_scope(scope, flag)
            if stats is None or base_type(stats.data_type) != "boolean":
                return None
            return self.predicate(scope, exp.EQ(this=flag.copy(), expression=exp.Boolean(this=flag is node)))
        if isinstance(node, exp.Not) and isinstance(flag, exp.Is) and isinstance(flag.expression, exp.Null):
            column, stats = column_in_scope(scope, flag.this)
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
            column, stats = column_in_scope(scope, node.this)
            if stats is None or stats.null_fraction is None:
                return None
            return (
                stats.null_fraction,
                "accurate",
                column,
                ColumnStats(stats.data_type, 1.0, 0, derived_from=stats.derived_from),
            )
        if isinstance(node, exp.Between):
            column, stats = column_in_scope(scope, node.this)
            low, high = (_literal(node.args.get(side), stats) for side in ("low", "high"))
            if stats is None or low is None or high is None:
                return None
            return range_share(column, stats, low, high, True, True)
        if isinstance(node, exp.In) and not node.args.get("query"):
            column, stats = column_in_scope(scope, node.this)
            # NULL in the list matches no row
            values = [_literal(value, stats) for value in node.expressions if not isinstance(value, exp.Null)]
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
            column, stats = column_in_scope(scope, left)
            value = _literal(right, stats)
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
                return (
                    (1 - share) * non_null,
                    level,
                    column,
                    stats.replace(
                        null_fraction=0.0,
                        distinct_count=max((stats.distinct_count or 1) - 1, 0),
                        histogram=None,
                        top_values=None,
                    ),
                )
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
                low = (
                    min((item.min for item in kept), default=None) if None not in (item.min for item in kept) else None
                )
                high = (
                    max((item.max for item in kept), default=None) if None not in (item.max for item in kept) else None
                )
            except TypeError:
                low = high = None
            counts = [item.distinct_count for item in kept]
            distinct = None if None in counts else min(sum(counts), stats.distinct_count or sum(counts))
            return fraction, level, (alias, name), stats.replace(
                null_fraction=0.0, distinct_count=distinct, min=low, max=high, histogram=None, top_values=None)
        fraction = 1 - math.prod(1 - item[0] for item in found)
        return fraction, lowest_accuracy(level, "medium"), None, None


def _dependency_factor(scope: dict[str, RelationStats], equalities: dict[tuple[str, str], float]) -> float:
    """How much more the equalities ``a = x AND b = y`` keep than independence says, where (a, b) is a
    column group of their relation: its combinations are fewer than the product of the columns'
    distinct counts by Π NDV / NDV(group), so each existing combination holds that much more of the
    rows (the dependency degree the group's count gives: 1 where the columns are independent, the
    other columns' NDVs where one column determines them). At most what the most selective of
    them keeps alone. Groups largest first, each column in one.

    >>> from dbt_analyze.column_stats import ColumnStats
    >>> places = RelationStats(20000, {"zip": ColumnStats("string", 0.0, 2000, None, None, 4, 5),
    ...                                "city": ColumnStats("string", 0.0, 100, None, None, 6, 6)},
    ...                        groups={frozenset({"zip", "city"}): (2000, 0)})
    >>> _dependency_factor({"p": places}, {("p", "zip"): 1 / 2000, ("p", "city"): 1 / 100})
    100.0
    """
    factor = 1.0
    for alias, relation in scope.items():
        mine = {column: fraction for (owner, column), fraction in equalities.items() if owner == alias}
        for columns, (distinct, _) in sorted(relation.groups.items(), key=lambda item: -len(item[0])):
            counts = [relation.columns[c].distinct_count if c in relation.columns else None for c in columns]
            if not columns <= mine.keys() or None in counts or not distinct:
                continue
            fractions = [mine.pop(column) for column in columns]
            independent = math.prod(fractions)
            if independent > 0:
                factor *= min(independent * max(math.prod(counts) / distinct, 1.0), min(fractions)) / independent
    return factor


def _equi_join(scope, node: exp.EQ):
    """a.x = b.y between two sources keeps the rows the join's estimate kept (join_rows takes a
    join's keys from the WHERE when it has no ON: FROM a, b WHERE a.x = b.y); on one source's
    two columns, unknown."""
    aliases = [column.table.lower() for column in (node.this, node.expression)]
    if len(scope) < 2 or "" in aliases or aliases[0] == aliases[1] or not set(aliases) <= set(scope):
        return None
    return 1.0, "low", None, None


def _literal(node: Optional[exp.Expression], stats: Optional[ColumnStats]) -> Any:
    """A constant compared with a column, as a value of the column's type (None: not a constant)."""
    if stats is None or node is None:
        return None
    if isinstance(node, (exp.Cast, exp.TryCast)):
        node = node.this
    if isinstance(node, exp.Boolean):
        return node.this
    if isinstance(node, exp.Literal):
        return parse_value(node.this, stats.data_type)
    return None


def _constant_truth(node: exp.Expression) -> Optional[bool]:
    """True or False for a condition without columns, subqueries or random functions that folds
    to a constant (1 = 1, true, NOT false, 1 > 2); NULL keeps no row, so it is False. Else None."""
    if node.find(exp.Column, exp.Select, exp.Rand, exp.Anonymous):
        return None
    folded = simplify(node.copy())
    if isinstance(folded, exp.Boolean):
        return folded.this
    return False if isinstance(folded, exp.Null) else None

