"""Spark's SQL types, as the package reads them: names and aliases, categories, sizes, integer ranks
and decimal precision. The macros keep the same facts for SQL (`_type_category` and
`_default_size` in macros/rewrite/_measures.sql); integration_tests/tests/test_type_facts.py holds
the two to agreement for every type name, aliases included.

>>> base_type("LONG"), category("integer"), default_size("decimal(20,2)"), fixed_width("string")
('bigint', 'integral', 16, None)
"""

from __future__ import annotations

import re
from typing import Optional

# Spark's other names for a type (`long` is `bigint`); char and varchar stay types of their own.
ALIASES = {"byte": "tinyint", "short": "smallint", "integer": "int", "long": "bigint", "real": "float",
           "dec": "decimal", "numeric": "decimal", "timestamp_ltz": "timestamp"}
CATEGORIES = {
    "boolean": "boolean",
    "tinyint": "integral",
    "smallint": "integral",
    "int": "integral",
    "bigint": "integral",
    "float": "fractional",
    "double": "fractional",
    "decimal": "decimal",
    "date": "date",
    "timestamp": "timestamp",
    "timestamp_ntz": "timestamp_ntz",
    "string": "string",
    "char": "string",
    "varchar": "string",
    "binary": "binary",
    "interval": "interval",
    "array": "collection",
    "map": "collection",
    "struct": "struct",
}
# Spark's defaultSize: what its ANALYZE stores as the average and largest length of a type of fixed
# width, and of strings (20) and binaries (100) without a value.
DEFAULT_SIZES = {"boolean": 1, "tinyint": 1, "smallint": 2, "int": 4, "bigint": 8, "float": 4, "double": 8, "date": 4,
                 "timestamp": 8, "timestamp_ntz": 8, "string": 20, "char": 20, "varchar": 20, "binary": 100}
VARIABLE_WIDTH = ("string", "char", "varchar", "binary")
# Integers by width, and the decimal each one widens to in decimal arithmetic.
INTEGER_RANKS = {"tinyint": 1, "smallint": 2, "int": 3, "bigint": 4}
INTEGER_TYPES = tuple(INTEGER_RANKS)
INTEGER_DECIMALS = {"tinyint": (3, 0), "smallint": (5, 0), "int": (10, 0), "bigint": (20, 0)}


def base_type(data_type: Optional[str]) -> Optional[str]:
    """A type's name without its parameters, element types or collation, aliases resolved.

    >>> base_type("decimal(10,2)"), base_type("string collate utf8_lcase"), base_type("Integer"), base_type("array<int>")
    ('decimal', 'string', 'int', 'array')
    """
    name = re.split(r"[(<\s]", (data_type or "").strip().lower(), maxsplit=1)[0]
    return ALIASES.get(name, name) or None


def category(data_type: Optional[str]) -> str:
    """The kind of statistics a type gets: boolean, integral, fractional, decimal, date, timestamp,
    timestamp_ntz, string, binary, interval, collection, struct or other.

    >>> category("interval day to second"), category("timestamp_ltz"), category("variant")
    ('interval', 'timestamp', 'other')
    """
    return CATEGORIES.get(base_type(data_type) or "", "other")


def decimal_precision(data_type: str) -> tuple[int, int]:
    """(precision, scale) of a decimal type; Spark's decimal alone is decimal(10,0).

    >>> decimal_precision("decimal(12, 2)"), decimal_precision("decimal(5)"), decimal_precision("decimal")
    ((12, 2), (5, 0), (10, 0))
    """
    found = [int(number) for number in re.findall(r"\d+", data_type)]
    return (found[0], found[1] if len(found) > 1 else 0) if found else (10, 0)


def default_size(data_type: Optional[str]) -> Optional[int]:
    """Spark's defaultSize of a type in bytes; None for types without one here (collections, structs).

    >>> default_size("interval year to month"), default_size("interval hour"), default_size("decimal(38,0)"), default_size("varchar(5)")
    (4, 8, 16, 20)
    """
    base = base_type(data_type)
    if base == "interval":
        return 4 if re.search(r"year|month", data_type or "", re.IGNORECASE) else 8
    if base == "decimal":
        return 8 if decimal_precision(data_type or "")[0] <= 18 else 16
    return DEFAULT_SIZES.get(base or "")


def fixed_width(data_type: Optional[str]) -> Optional[int]:
    """The width in bytes of a type of fixed width; None for strings, binaries and the rest.

    >>> fixed_width("decimal(10,2)"), fixed_width("long"), fixed_width("binary")
    (8, 8, None)
    """
    return None if base_type(data_type) in VARIABLE_WIDTH else default_size(data_type)


def value_step(data_type: Optional[str]) -> float:
    """The distance between neighbouring values of a type on :func:`column_stats.as_number`'s line
    (integers and dates 1, a decimal 10^-scale, timestamps a microsecond); 0 for floating point and
    the rest. A range's estimate counts a value v as the interval (v - step, v].

    >>> value_step("int"), value_step("date"), value_step("decimal(10,2)"), value_step("double")
    (1.0, 1.0, 0.01, 0.0)
    """
    kind = category(data_type)
    if kind in ("integral", "date"):
        return 1.0
    if kind == "decimal":
        return 10.0 ** -decimal_precision(data_type or "")[1]
    if kind in ("timestamp", "timestamp_ntz"):
        return 1e-6
    return 0.0
