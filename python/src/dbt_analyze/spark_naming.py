"""Spark's names of selected expressions: the name Spark gives an unaliased expression (its
pretty SQL), so that an estimate is the statistics of the column a model has.

>>> spark_column_name(sqlglot.parse_one("id * 2 + 1", read="spark"))
'((id * 2) + 1)'
"""

from __future__ import annotations

from typing import Optional

import sqlglot  # noqa: F401 (the examples parse with it)
from sqlglot import exp

# sqlglot's expression classes whose Spark function name differs from sqlglot's.
FUNCTION_NAMES = {
    exp.Substring: "substr", exp.SHA: "sha1", exp.TimestampTrunc: "date_trunc", exp.DateTrunc: "trunc",
    exp.TsOrDsToDate: "to_date", exp.TsOrDsAdd: "date_add", exp.DayOfMonth: "day", exp.Trim: "trim",
    exp.Add: "+", exp.Sub: "-", exp.Mul: "*", exp.Div: "/", exp.Mod: "%", exp.Neg: "negative",
    exp.EQ: "=", exp.NEQ: "<>", exp.GT: ">", exp.GTE: ">=", exp.LT: "<", exp.LTE: "<=",
    exp.And: "and", exp.Or: "or", exp.In: "in", exp.Between: "between", exp.Like: "like",
    exp.NullSafeEQ: "=", exp.Not: "not", exp.DPipe: "concat", exp.IntDiv: "div", exp.ILike: "ilike",
    exp.BitwiseAnd: "&", exp.BitwiseOr: "|", exp.BitwiseXor: "^", exp.BitwiseNot: "~",
    exp.BitwiseLeftShift: "shiftleft", exp.BitwiseRightShift: "shiftright",
}
# The order of some functions' arguments in Spark, where sqlglot's differs.
SPARK_ARGUMENT_ORDER = {
    exp.TimestampTrunc: ("unit", "this"),
    exp.DateTrunc: ("this", "unit"),
    exp.TsOrDsAdd: ("this", "expression"),
}


# How Spark writes an operator in the name of an unaliased expression.
SPARK_OPERATORS = {exp.Add: "+", exp.Sub: "-", exp.Mul: "*", exp.Div: "/", exp.Mod: "%", exp.IntDiv: "div",
                   exp.EQ: "=", exp.GT: ">", exp.GTE: ">=", exp.LT: "<", exp.LTE: "<=", exp.And: "AND", exp.Or: "OR"}


# Functions whose name Spark writes in capitals when called by it (not by an alias: pow, sign, ceiling).
SPARK_CAPITALIZED = {
    "acos",
    "asin",
    "atan",
    "atan2",
    "cbrt",
    "ceil",
    "cos",
    "cosh",
    "cot",
    "degrees",
    "exp",
    "expm1",
    "floor",
    "hypot",
    "log10",
    "log1p",
    "log2",
    "power",
    "radians",
    "signum",
    "sin",
    "sinh",
    "sqrt",
    "tan",
    "tanh",
}
# Arguments Spark adds to a call's name where the call leaves them out: by function, its
# argument count and what to append.
SPARK_DEFAULT_ARGUMENTS = {
    ("round", 1): ["0"],
    ("bround", 1): ["0"],
    ("regexp_replace", 3): ["1"],
    ("split", 2): ["-1"],
    ("months_between", 2): ["true"],
}


def spark_column_name(node: exp.Expression, sql: Optional[str] = None) -> Optional[str]:
    """The name Spark gives a selected expression without an alias (its pretty SQL), or None where
    it is not known here (sqlglot then names it _col_N). With the ``sql`` the node was parsed
    from, a function keeps the name it was called by (sqlglot reads nvl as coalesce).

    >>> [spark_column_name(sqlglot.parse_one(sql, read="spark")) for sql in
    ...  ("cast(id as int)", "count(*)", "upper(name)", "id * 2 + 1", "coalesce(name, 'z')", "name || 'x'")]
    ['id', 'count(1)', 'upper(name)', '((id * 2) + 1)', 'coalesce(name, z)', 'concat(name, x)']
    >>> [spark_column_name(sqlglot.parse_one(sql, read="spark"), sql) for sql in
    ...  ("nvl(a, 0)", "a in (1, 2)", "a is not null", "a <> 1", "round(f)", "floor(f)", "count(distinct a)")]
    ['nvl(a, 0)', '(a IN (1, 2))', '(a IS NOT NULL)', '(NOT (a = 1))', 'round(f, 0)', 'FLOOR(f)', 'count(DISTINCT a)']
    """
    def name(child: Optional[exp.Expression]) -> Optional[str]:
        return spark_column_name(child, sql) if child is not None else None

    def joined(children: list) -> Optional[str]:
        names = [name(child) for child in children]
        return None if None in names or not names else ", ".join(names)

    written = _written_name(node, sql)
    if isinstance(node, exp.Paren):
        return name(node.this)
    if isinstance(node, (exp.Column, exp.Dot)):  # a struct's field is named by the field
        return node.name
    if isinstance(node, exp.TsOrDsToDate) and not written:  # sqlglot's, around a date function's argument
        return name(node.this)
    if isinstance(node, (exp.Cast, exp.TryCast)):
        if written and written.lower() not in _CAST_FUNCTIONS:  # to_timestamp(c)
            inner = name(node.this)
            return f"{written.lower()}({inner})" if inner is not None else None
        return node.this.name if isinstance(node.this, exp.Column) else None  # a cast column keeps the column's name
    if isinstance(node, (exp.Literal, exp.Var)):  # a string as its text, a unit (date_trunc's) as written
        return node.this if isinstance(node, exp.Literal) else node.name
    if isinstance(node, exp.Anonymous) and node.name.lower() in ("isnull", "isnotnull") and len(node.expressions) == 1:
        inner = name(node.expressions[0])
        return f"({inner} IS {'NOT ' if node.name.lower() == 'isnotnull' else ''}NULL)" if inner is not None else None
    if isinstance(node, exp.Boolean):
        return "true" if node.this else "false"
    if isinstance(node, exp.Null):
        return "NULL"
    if isinstance(node, exp.Count) and isinstance(node.this, exp.Star):
        return "count(1)"
    if isinstance(node, exp.Neg):
        inner = name(node.this)
        return f"(- {inner})" if inner is not None else None
    if isinstance(node, exp.Not) and isinstance(node.this, exp.Is):
        inner = name(node.this.this)
        return f"({inner} IS NOT NULL)" if inner is not None and isinstance(node.this.expression, exp.Null) else None
    if isinstance(node, exp.Is):
        inner = name(node.this)
        return f"({inner} IS NULL)" if inner is not None and isinstance(node.expression, exp.Null) else None
    if isinstance(node, exp.Not):
        inner = name(node.this)
        return f"(NOT {inner})" if inner is not None else None
    if isinstance(node, exp.NEQ):
        left, right = name(node.this), name(node.expression)
        return f"(NOT ({left} = {right}))" if left is not None and right is not None else None
    if isinstance(node, exp.In) and not node.args.get("query"):
        inner, values = name(node.this), joined(node.expressions)
        return f"({inner} IN ({values}))" if inner is not None and values is not None else None
    if isinstance(node, exp.Like) and not node.args.get("escape"):
        left, right = name(node.this), name(node.expression)
        return f"{left} LIKE {right}" if left is not None and right is not None else None
    if isinstance(node, exp.Between):
        arguments = joined([node.this, node.args.get("low"), node.args.get("high")])
        return f"between({arguments})" if arguments is not None else None
    if isinstance(node, exp.If):
        arguments = joined([node.this, node.args.get("true"), node.args.get("false")])
        return f"(IF({arguments}))" if arguments is not None else None
    if isinstance(node, exp.Case) and node.this is None and node.args.get("ifs"):
        branches = [(name(branch.this), name(branch.args.get("true"))) for branch in node.args["ifs"]]
        default = name(node.args["default"]) if node.args.get("default") is not None else None
        if (default is None and node.args.get("default") is not None) or any(None in branch for branch in branches):
            return None
        return f"CASE {' '.join(f'WHEN {when} THEN {then}' for when, then in branches)}{'' if default is None else f' ELSE {default}'} END"
    if type(node) in SPARK_OPERATORS or isinstance(node, exp.DPipe):
        left, right = name(node.this), name(node.expression)
        if left is None or right is None:
            return None
        if written and isinstance(node, exp.Mod):  # mod(a, b), not a % b
            return f"{written.lower()}({left}, {right})"
        return (
            f"concat({left}, {right})"
            if isinstance(node, exp.DPipe)
            else f"({left} {SPARK_OPERATORS[type(node)]} {right})"
        )
    if isinstance(node, exp.Count) and isinstance(node.this, exp.Distinct):
        arguments = joined(node.this.expressions)
        return f"count(DISTINCT {arguments})" if arguments is not None else None
    # generators (explode, inline, json_tuple) name their own columns
    if (isinstance(node, exp.Func) and not isinstance(node, (exp.Case, exp.If, exp.Window, exp.UDTF))
            and node.find(exp.Window) is None and node.name.lower() != "json_tuple"):
        function = (
            written
            or (node.name if isinstance(node, exp.Anonymous) else FUNCTION_NAMES.get(type(node)) or node.sql_name())
        ).lower()
        arguments = [name(argument) for argument in spark_arguments(node)]
        if function in ("log10", "log2", "initcap"):  # sqlglot adds the base (log) or the delimiter (initcap)
            arguments = arguments[-1:] if function != "initcap" else arguments[:1]
        if not function or None in arguments or (isinstance(node, exp.AggFunc) and node.find(exp.Distinct)):
            return None
        arguments += SPARK_DEFAULT_ARGUMENTS.get((function, len(arguments)), [])
        return f"{function.upper() if function in SPARK_CAPITALIZED else function}({', '.join(arguments)})"
    return None


# Casts called as functions (string(a)): named by their column, as a CAST is.
_CAST_FUNCTIONS = {
    "string",
    "int",
    "bigint",
    "smallint",
    "tinyint",
    "double",
    "float",
    "boolean",
    "date",
    "timestamp",
    "binary",
    "decimal",
}


def _written_name(node: exp.Expression, sql: Optional[str]) -> Optional[str]:
    """The name a function was called by in ``sql``, where sqlglot kept where it read it."""
    start, end = node.meta.get("start"), node.meta.get("end")
    if sql is None or start is None or end is None:
        return None
    text = sql[start:end + 1]
    return text if text.replace("_", "a").isalnum() and not text[0].isdigit() else None


def name_as_spark_does(tree: exp.Expression, sql: str) -> None:
    """Alias each selected expression without a name as Spark names it, so that its estimate is
    the statistics of the column the model has; so too the columns of VALUES (col1, col2, ...) and
    of range() (id)."""
    for values in tree.find_all(exp.Values):
        alias = values.args.get("alias")
        if not (alias and alias.columns) and values.expressions:
            first = values.expressions[0]
            count = len(first.expressions) if isinstance(first, exp.Tuple) else 1
            values.set(
                "alias",
                exp.TableAlias(
                    this=alias.this if alias else None,
                    columns=[exp.to_identifier(f"col{index + 1}") for index in range(count)],
                ),
            )
    for table in tree.find_all(exp.Table):
        if (
            isinstance(table.this, exp.Anonymous)
            and table.this.name.lower() == "range"
            and not (table.args.get("alias") and table.args["alias"].columns)
        ):
            alias = table.args.get("alias")
            table.set(
                "alias",
                exp.TableAlias(
                    this=alias.this if alias else exp.to_identifier("range"), columns=[exp.to_identifier("id")]
                ),
            )
    for select in tree.find_all(exp.Select):
        for projection in select.expressions:
            if isinstance(projection, (exp.Alias, exp.Column, exp.Star)) or (
                projection.find(exp.Star) and not isinstance(projection, exp.Count)
            ):
                continue
            name = spark_column_name(projection, sql)
            if name:
                projection.replace(exp.alias_(projection.copy(), name, quoted=True))


def spark_arguments(node: exp.Expression) -> list[exp.Expression]:
    """The call's arguments in Spark's order."""
    if isinstance(node, exp.Anonymous):
        return list(node.expressions)
    order = SPARK_ARGUMENT_ORDER.get(type(node), tuple(node.arg_types))
    found = []
    for key in order:
        value = node.args.get(key)
        found.extend(value if isinstance(value, list) else [value] if isinstance(value, exp.Expression) else [])
    return found
