"""Expressions: the statistics of a projection's values, by a handler per class of expression
(columns, literals, casts, CASE and IF, aggregates, and Spark's functions and operators by the
rules of :mod:`dbt_analyze.function_rules`), and the types Spark gives arithmetic.

:class:`Expressions` is the part of the estimator (:mod:`dbt_analyze.estimate`) that computes them.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Optional

from sqlglot import exp

from dbt_analyze.column_stats import ColumnStats, format_value
from dbt_analyze.function_rules import _cast
from dbt_analyze.relations import column_in_scope, columns_of_one_input
from dbt_analyze.spark_naming import FUNCTION_NAMES, spark_arguments
from dbt_analyze.spark_types import INTEGER_DECIMALS, INTEGER_RANKS, base_type, decimal_precision, fixed_width

ARITHMETIC = ("+", "-", "*", "/", "%", "div")


class Expressions:
    """The estimator's expressions; expects ``rules`` and ``predicate``."""

    def expression(self, node: exp.Expression, scope, rows: Optional[float], grouped: bool = False) -> ColumnStats:
        """The statistics of an expression's values, by the handler of its class (EXPRESSIONS: the
        nearest registered class of its class hierarchy); unknown for expressions without one."""
        node = node.unalias()
        handler = next((EXPRESSIONS[kind] for kind in type(node).__mro__ if kind in EXPRESSIONS), None)
        found = handler(self, node, scope, rows, grouped) if handler else None
        return found if found is not None else ColumnStats.unknown(derived_from=_sources(node, scope))

    def column(self, node: exp.Column, scope, rows, grouped) -> ColumnStats:
        _, stats = column_in_scope(scope, node)
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
        return ColumnStats.literal(
            Decimal(text), f"decimal({len(text.replace('.', '').lstrip('-'))},{len(text.split('.')[-1])})"
        )

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
        found = (
            self.predicate(scope, exp.In(this=node.this.copy(), expressions=others)) if others else (0.0, "accurate")
        )
        share, accuracy = found[:2] if found else (None, "low")
        if share == 0:
            return ColumnStats.literal(None, "boolean").replace(
                accuracy=accuracy, constant=False, derived_from=_sources(node, scope)
            )
        return ColumnStats.literal(value, "boolean").replace(
            null_fraction=None if share is None else 1 - share,
            accuracy=accuracy,
            constant=False,
            derived_from=_sources(node, scope),
        )

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
            return (
                ColumnStats.literal(value, target)
                if value is not None or source.min is None
                else ColumnStats.unknown(target)
            )
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
            return ColumnStats("bigint", 0.0, None, max=_distinct_combinations(node, scope), avg_len=8, max_len=8,
                               derived_from=_sources(node, scope))
        return ColumnStats.unknown(derived_from=_sources(node, scope))



def _distinct_combinations(node: exp.Count, scope) -> Optional[float]:
    """The most ``count(distinct a, b)`` can count: the distinct combinations of a column group of
    one input that is exactly its columns (the count itself where the query has no GROUP BY).

    >>> from dbt_analyze.relations import RelationStats
    >>> places = RelationStats(100, {"zip": ColumnStats("string", 0.0, 20, None, None, 3, 3),
    ...                              "city": ColumnStats("string", 0.0, 5, None, None, 5, 5)},
    ...                        groups={frozenset({"zip", "city"}): (20, 0)})
    >>> _distinct_combinations(exp.maybe_parse("count(distinct zip, city)", dialect="spark"), {"p": places})
    20
    """
    if not isinstance(node.this, exp.Distinct) or len(node.this.expressions) < 2:
        return None
    found = columns_of_one_input(scope, node.this.expressions)
    if found is None:
        return None
    relation, columns = found
    group = relation.groups.get(frozenset(columns))
    return group[0] if group else None


# The handler of each class of expression: a node's is that of the nearest class of its hierarchy
# listed here (TryCast is a Cast, Count an AggFunc, Not a Unary).
EXPRESSIONS = {
    exp.Paren: lambda self, node, scope, rows, grouped: self.expression(node.this, scope, rows, grouped),
    exp.Column: Expressions.column,
    **{kind: Expressions.literal for kind in (exp.Null, exp.Boolean, exp.Literal, exp.Var)},
    **{kind: Expressions.cast for kind in (exp.Cast, exp.TryCast)},
    exp.AggFunc: lambda self, node, scope, rows, grouped: self.aggregate(node, scope, rows),
    **{kind: Expressions.conditional for kind in (exp.Case, exp.If)},
    **{kind: Expressions.function for kind in (exp.Func, exp.Binary, exp.Unary, exp.Between, exp.In)},
}


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
        stays_float = (
            "double" not in bases and operator != "/" and (other == "float" or (other in INTEGER_RANKS and not ansi))
        )
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


