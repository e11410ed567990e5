r"""Seeds on dbt-spark's ``session`` connection, loaded as the CSV has them.

That connection puts each seed value into the INSERT statement between single quotes as it is:
an empty cell (None) becomes the string 'None' (a NULL wanted, and a wrong value in every
statistic of the column), an apostrophe ends the literal early (a syntax error, the seed does not
load) and a backslash starts one of Spark's escapes (the backslash is lost). ``register()`` makes
it write NULL for an empty cell and escape strings the way Spark's parser reads them back; numbers
and timestamps stay as dbt-spark writes them. Thrift connections quote in PyHive, correctly.

>>> print(sql_literal(None), sql_literal("O'Brien"), sql_literal("back\\slash"))
NULL 'O\'Brien' 'back\\slash'
"""

from __future__ import annotations

from typing import Any


def sql_literal(value: Any) -> str:
    """A seed cell as a Spark SQL literal: NULL for an empty cell, else a quoted string."""
    if value is None:
        return "NULL"
    return "'" + str(value).replace("\\", "\\\\").replace("'", "\\'") + "'"


def register() -> bool:
    """Make dbt-spark's session connection bind empty cells and strings with sql_literal; idempotent.
    False when dbt-spark is not installed."""
    try:
        from dbt.adapters.spark.session import SessionConnectionWrapper
    except ImportError:
        return False
    if getattr(SessionConnectionWrapper, "_dbt_analyze_literals", False):
        return True
    upstream = SessionConnectionWrapper._fix_binding

    def _fix_binding(cls, value: Any) -> Any:
        return sql_literal(value) if value is None or isinstance(value, str) else upstream(value)

    SessionConnectionWrapper._fix_binding = classmethod(_fix_binding)
    SessionConnectionWrapper._dbt_analyze_literals = True
    return True
