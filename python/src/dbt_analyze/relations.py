"""Relations: how rows and columns' statistics flow through a query's FROM, joins, WHERE, GROUP BY,
projections, DISTINCT, LIMIT, set operations, VALUES, range() and TABLESAMPLE.

:class:`Relations` is the part of the estimator (:mod:`dbt_analyze.estimate`) that walks a query's
relations; a filter's selectivity comes from :class:`dbt_analyze.predicates.Predicates` and a
projection's statistics from :class:`dbt_analyze.expressions.Expressions`, the estimator's other
two parts.

>>> table = RelationStats(1000, {"id": ColumnStats("int", 0.0, 1000, 1, 1000, 4, 4)})
>>> _sample(table, exp.TableSample(percent=exp.Literal.number(10))).row_count
100.0
"""

from __future__ import annotations

import dataclasses
import math
from typing import Optional

from sqlglot import exp

from dbt_analyze.column_stats import ColumnStats, as_number, collation_key, lowest_accuracy, parse_value
from dbt_analyze.selectivity import sampled


@dataclasses.dataclass
class RelationStats:
    """A relation's row count (None: unknown) and its columns' statistics, in output order."""

    row_count: Optional[float]
    columns: dict[str, ColumnStats]
    row_accuracy: Optional[str] = "accurate"
    # column groups' statistics: {frozenset of column names: (distinct combinations, rows with a null)}
    groups: dict[frozenset, tuple[float, float]] = dataclasses.field(default_factory=dict)

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
        groups = {frozenset(name.lower() for name in row["column_names"]): (row["distinct_count"], row.get("null_count") or 0)
                  for row in table.get("column_groups", []) if row.get("distinct_count") is not None}
        return cls(rows, columns, groups=groups)

    def lowered(self, accuracy: Optional[str]) -> "RelationStats":
        return dataclasses.replace(
            self,
            columns={
                name: stats.replace(accuracy=lowest_accuracy(stats.accuracy, accuracy))
                for name, stats in self.columns.items()
            },
        )


class Relations:
    """The estimator's relation walk; expects ``inputs``, ``rules``, ``filter`` and ``expression``."""

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
            stats = groups.get(key) or self.expression(
                projection.unalias(), scope, rows, grouped=group is not None or aggregated
            )
            columns[name] = _with_rows(stats, rows, row_accuracy)
        if node.args.get("distinct") is not None and rows is not None:
            counts = [stats.distinct_count for stats in columns.values()]
            by_groups = (_distinct_by_column_groups(scope, [projection.unalias() for projection in node.expressions])
                         if group is None and len(node.expressions) > 1 else None)
            if by_groups is not None:  # SELECT DISTINCT a, b over a column group: as GROUP BY a, b
                rows = min(rows, by_groups[0])
                row_accuracy = lowest_accuracy(row_accuracy, "accurate" if by_groups[1] else "medium")
            else:
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
            distinct = _join_key_distinct(join, scope, aliases[:index + 1], aliases[index + 1], node.args.get("where"))
            if distinct is None and join.args.get("on") is None and not join.args.get("using"):
                rows *= right.row_count  # a cross join
                continue
            if distinct is None:
                return None
            matched = rows * right.row_count / max(distinct, 1)
            rows = max(
                matched, rows if side in ("LEFT", "FULL") else 0, right.row_count if side in ("RIGHT", "FULL") else 0
            )
        return rows

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
                data_type=types.pop() if len(types) == 1 else None,
                null_fraction=1 - len(present) / len(cells),
                distinct_count=len({collation_key(value, cell.data_type) for value, cell in zip(values, present)}),
                min=low,
                max=high,
                avg_len=sum(cell.avg_len for cell in present) / len(present) if present else None,
                max_len=max((cell.max_len for cell in present), default=None),
            )
        return RelationStats(len(rows), columns)

    def union(self, node: exp.Union, ctes: dict[str, RelationStats]) -> RelationStats:
        left, right = self.query(node.left, ctes), self.query(node.right, ctes)
        distinct = node.args.get("distinct")
        rows = None if None in (left.row_count, right.row_count) or distinct else left.row_count + right.row_count
        columns = {}
        for (name, a), b in zip(left.columns.items(), right.columns.values()):
            stats = self.rules.apply("coalesce", [a.replace(null_fraction=None), b.replace(null_fraction=None)], rows)
            if (
                stats is not None
                and None not in (a.null_fraction, b.null_fraction, left.row_count, right.row_count)
                and rows
            ):
                stats.null_fraction = (a.null_fraction * left.row_count + b.null_fraction * right.row_count) / rows
            columns[name] = (
                stats.replace(accuracy=lowest_accuracy(stats.accuracy, "medium")) if stats else ColumnStats.unknown()
            )
        return RelationStats(rows, columns, lowest_accuracy(left.row_accuracy, right.row_accuracy) if rows else None)

    def difference(self, node: exp.SetOperation, ctes: dict[str, RelationStats]) -> RelationStats:
        """EXCEPT and INTERSECT keep some of the left side's rows: its columns, whose distinct counts
        and bounds are upper bounds now (low accuracy); how many rows is not known."""
        return RelationStats(None, _upper_bounds(self.query(node.left, ctes).columns), None)

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
        by_groups = _distinct_by_column_groups(scope, keys) if len(keys) > 1 else None
        key_accuracy = "accurate" if len(keys) == 1 else "low"
        if by_groups is not None and grouped_rows is not None:
            combinations, covered = by_groups
            grouped_rows = min(grouped_rows, combinations, rows)
            key_accuracy = "accurate" if covered else "medium"
        accuracy = lowest_accuracy(row_accuracy, *(s.accuracy for s in groups.values()), key_accuracy)
        for key, stats in groups.items():
            if grouped_rows:
                groups[key] = stats.replace(null_fraction=(1 / grouped_rows if stats.null_fraction else 0.0),
                                            histogram=None, top_values=None,
                                            accuracy=lowest_accuracy(stats.accuracy, accuracy))
        return grouped_rows, accuracy if grouped_rows is not None else None, groups


def _distinct_by_column_groups(scope: dict[str, RelationStats], keys: list[exp.Expression]):
    """The keys' distinct combinations from column groups of their relation, and whether groups
    cover every key: keys that are columns of one input relation, whose column groups are
    subsets of them (largest first, disjoint); each group counts its combinations (+1 where its
    columns have nulls), each key left over its own distinct count (+1 for NULL), multiplied as
    independent. None when no group applies.

    >>> zip_city = RelationStats(1000, {"zip": ColumnStats("string", 0.0, 600, None, None, 3, 4),
    ...                                 "city": ColumnStats("string", 0.0, 60, None, None, 5, 6),
    ...                                 "day": ColumnStats("string", 0.0, 3, None, None, 5, 6)},
    ...                          groups={frozenset({"zip", "city"}): (600, 0)})
    >>> _distinct_by_column_groups({"t": zip_city}, [exp.column("zip"), exp.column("city")])
    (600, True)
    >>> _distinct_by_column_groups({"t": zip_city}, [exp.column("zip"), exp.column("city"), exp.column("day")])
    (1800, False)
    """
    found = columns_of_one_input(scope, keys)
    if found is None:
        return None
    relation, left = found
    combinations, used = 1, False
    for columns, (distinct, nulls) in sorted(relation.groups.items(), key=lambda item: -len(item[0])):
        if columns <= left.keys():
            combinations *= distinct + (1 if nulls else 0)
            for column in columns:
                del left[column]
            used = True
    if not used:
        return None
    for stats in left.values():
        if stats.distinct_count is None or stats.null_fraction is None:
            return None
        combinations *= stats.distinct_count + (1 if stats.null_fraction > 0 else 0)
    return combinations, not left


def columns_of_one_input(scope: dict[str, RelationStats], keys: list[exp.Expression]):
    """(the relation, {column: statistics}) when every key is a column of the same input of the
    query's scope (its column groups apply to them), else None."""
    found = [column_in_scope(scope, key) for key in keys]
    if any(name is None for name, _ in found) or len({alias for (alias, _), _ in found}) != 1:
        return None
    return scope[found[0][0][0]], {column: stats for (_, column), stats in found}


def column_in_scope(scope: dict[str, RelationStats], node: exp.Expression):
    """((alias, column name), statistics) of a column reference in a query's scope (an unqualified
    name is the first source's), or (None, None) for anything else and for unknown columns."""
    if not isinstance(node, exp.Column):
        return None, None
    alias = node.table.lower()
    relation = scope.get(alias) if alias else next(iter(scope.values()), None)
    stats = relation.columns.get(node.name.lower()) if relation else None
    if stats is None or stats.accuracy is None:
        return None, None
    return (alias or next(iter(scope)), node.name.lower()), stats


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
        if not (
            isinstance(equality, exp.EQ)
            and isinstance(equality.this, exp.Column)
            and isinstance(equality.expression, exp.Column)
        ):
            continue
        columns = {column.table.lower(): column.name.lower() for column in (equality.this, equality.expression)}
        left_alias = next((alias for alias in columns if alias in left_aliases), None)
        if right_alias in columns and left_alias:
            pairs.append(
                (
                    scope[left_alias].columns.get(columns[left_alias]),
                    scope[right_alias].columns.get(columns[right_alias]),
                )
            )
    counts = [max(left.distinct_count, right.distinct_count) for left, right in pairs
              if left and right and left.distinct_count is not None and right.distinct_count is not None]
    return max(counts) if counts else None


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


def _aggregates(select: exp.Select) -> bool:
    """Whether a SELECT computes aggregates of its own (not a window's, not a subquery's)."""
    return any(function.find_ancestor(exp.Window, exp.Select) is select
               for projection in select.expressions for function in projection.find_all(exp.AggFunc))


def _upper_bounds(columns: dict[str, ColumnStats]) -> dict[str, ColumnStats]:
    """Columns of some rows of a relation, which ones not known (a join's, EXCEPT's): their distinct
    counts and bounds are upper bounds (low accuracy), their null fractions unknown."""
    return {
        name: stats.replace(
            null_fraction=None, histogram=None, top_values=None, accuracy=lowest_accuracy(stats.accuracy, "low")
        )
        for name, stats in columns.items()
    }


def _sample(relation: RelationStats, sample: exp.TableSample) -> RelationStats:
    """A relation under TABLESAMPLE: (P PERCENT) and (BUCKET x OUT OF y) keep rows at random,
    P% or 1/y of them; (N ROWS) is the first N rows, as a LIMIT."""
    rows = relation.row_count
    percent, size, buckets = (sample.args.get(key) for key in ("percent", "size", "bucket_denominator"))
    try:
        fraction = (
            float(percent.name) / 100
            if percent is not None
            else 1 / float(buckets.name)
            if buckets is not None
            else None
        )
        limit = int(size.name) if size is not None and fraction is None else None
    except (AttributeError, ValueError, ZeroDivisionError):
        fraction = limit = None
    if rows is None or (fraction is None and limit is None):
        return RelationStats(None, _upper_bounds(relation.columns), None)
    if limit is not None:
        return dataclasses.replace(
            relation, row_count=min(rows, limit), row_accuracy=lowest_accuracy(relation.row_accuracy, "low")
        )
    fraction = min(max(fraction, 0.0), 1.0)
    return RelationStats(
        rows * fraction,
        {name: sampled(stats, rows, fraction) for name, stats in relation.columns.items()},
        lowest_accuracy(relation.row_accuracy, "medium") if fraction < 1 else relation.row_accuracy,
    )


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

