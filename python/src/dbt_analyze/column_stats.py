"""Column statistics as values that estimates are computed with.

Statistics tables hold min and max as text; here they are typed (int, Decimal, float, date,
datetime, bool or str) so that functions can be applied to them, and turned back into the text
Spark shows.

>>> stats = ColumnStats.from_row({"data_type": "date", "null_count": 1, "distinct_count": 3,
...                               "min_value": "2024-01-01", "max_value": "2024-01-03"}, row_count=4)
>>> stats.null_fraction, stats.min
(0.25, datetime.date(2024, 1, 1))
>>> format_value(stats.max)
'2024-01-03'
"""

from __future__ import annotations

import dataclasses
import datetime
import math
import re
import unicodedata
from decimal import ROUND_FLOOR, Decimal, InvalidOperation, localcontext
from typing import Any, Optional

from dbt_analyze.spark_types import INTEGER_TYPES, base_type, fixed_width

ACCURACY_LEVELS = ("low", "medium", "high", "accurate")
STATISTICS = ("distinct_count", "null_fraction", "min", "max", "avg_len", "max_len")


def lowest_accuracy(*levels: Optional[str]) -> Optional[str]:
    """The least trustworthy of some accuracy levels (None: unknown, the lowest of all).

    >>> lowest_accuracy("accurate", "medium", "high")
    'medium'
    """
    if any(level is None for level in levels):
        return None
    return min(levels, key=ACCURACY_LEVELS.index) if levels else "accurate"


def collation(data_type: Optional[str]) -> Optional[str]:
    """The collation of a string type whose values compare other than byte by byte (Spark 4).

    >>> collation("string collate UNICODE_CI"), collation("string collate utf8_binary"), collation("string")
    ('unicode_ci', None, None)
    """
    found = re.search(r"\scollate\s+(\w+)", data_type or "", flags=re.IGNORECASE)
    return found.group(1).lower() if found and found.group(1).lower() != "utf8_binary" else None


def collation_key(value: Any, data_type: Optional[str]) -> Any:
    """What a value compares equal by in a column of that type: itself, except in a collated
    string column, where it is folded the way the collation ignores differences: case
    (UTF8_LCASE, *_CI), accents (*_AI), trailing spaces (*_RTRIM); ICU collations also equate
    canonically equivalent forms. Close to ICU's equality, not identical to it.

    >>> collation_key("Straße ", "string collate unicode_ci_rtrim") == collation_key("STRASSE", "string collate unicode_ci_rtrim")
    True
    >>> collation_key("É", "string collate utf8_lcase"), collation_key("É", "string collate unicode_ci_ai"), collation_key("É", "string")
    ('é', 'e', 'É')
    """
    name = collation(data_type)
    if name is None or not isinstance(value, str):
        return value
    modifiers = set(name.split("_")[1:])
    if "rtrim" in modifiers:
        value = value.rstrip(" ")
    if name.startswith("utf8_lcase"):
        return value.lower()
    value = unicodedata.normalize("NFD", value)
    if "ci" in modifiers:
        value = value.casefold()
    if "ai" in modifiers:
        value = "".join(char for char in value if not unicodedata.combining(char))
    return unicodedata.normalize("NFC", value)


def parse_value(text: Any, data_type: Optional[str]) -> Any:
    """The typed value of a statistics table's text; None when it cannot be read.

    >>> parse_value("12.50", "decimal(5,2)"), parse_value("NaN", "decimal(5,2)"), parse_value("x", "int")
    (Decimal('12.50'), None, None)
    """
    if text is None or isinstance(text, (int, float, Decimal, datetime.date, bool)) and not isinstance(text, str):
        return text
    text = str(text)
    base = base_type(data_type)
    try:
        if base in INTEGER_TYPES:
            return int(text)
        if base == "decimal":  # a decimal is finite: 'NaN' (an imported document's) is not one
            value = Decimal(text)
            return value if value.is_finite() else None
        if base in ("float", "double"):
            return float(text)
        if base == "date":
            return datetime.date.fromisoformat(text[:10])
        if base in ("timestamp", "timestamp_ntz"):
            return datetime.datetime.fromisoformat(text.replace("T", " ").rstrip("Z"))
        if base == "boolean":
            return text.lower() == "true"
    except (ValueError, InvalidOperation):
        return None
    return text


def format_value(value: Any) -> Optional[str]:
    """A typed value as Spark shows it."""
    if value is None:
        return None
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, datetime.datetime):
        return value.isoformat(sep=" ")
    if isinstance(value, datetime.date):
        return value.isoformat()
    return str(value)


def as_number(value: Any) -> Optional[float]:
    """A value on a number line (dates as days, timestamps as seconds), for interpolation."""
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, datetime.datetime):
        return value.replace(tzinfo=datetime.timezone.utc).timestamp()
    if isinstance(value, datetime.date):
        return float(value.toordinal())
    if isinstance(value, (int, float, Decimal)):
        number = float(value)
        return number if math.isfinite(number) else None
    return None


def from_number(number: float, data_type: Optional[str]) -> Any:
    """The inverse of :func:`as_number`, rounded to the type (integers and dates down).

    >>> from_number(738886.7, "date"), from_number(2.9, "int"), from_number(-0.99, "decimal(38,38)") < 0
    (datetime.date(2024, 1, 1), 2, True)
    """
    base = base_type(data_type)
    if base == "date":
        return datetime.date.fromordinal(int(math.floor(number)))
    if base in ("timestamp", "timestamp_ntz"):
        return datetime.datetime.fromtimestamp(number, datetime.timezone.utc).replace(tzinfo=None)
    if base in INTEGER_TYPES:
        return int(math.floor(number))
    if base == "decimal":
        scale = re.search(r",\s*(\d+)", data_type or "")
        with localcontext() as context:
            context.prec = 80  # decimal(38, 38) needs more digits than the default 28
            return Decimal(number).quantize(
                Decimal(1).scaleb(-int(scale.group(1)) if scale else 0), rounding=ROUND_FLOOR
            )
    return number


@dataclasses.dataclass
class ColumnStats:
    """What is known of one column; None is unknown.

    ``accuracy`` is how far the numbers can be trusted (measured columns are ``accurate``);
    ``derived_from`` names the analyzed columns they come from; ``constant`` marks a literal.
    Histograms and top values come along only for columns read unchanged from an analyzed table.
    """

    data_type: Optional[str] = None
    null_fraction: Optional[float] = None
    distinct_count: Optional[float] = None
    min: Any = None
    max: Any = None
    avg_len: Optional[float] = None
    max_len: Optional[float] = None
    accuracy: Optional[str] = "accurate"
    derived_from: tuple = ()
    constant: bool = False
    histogram: Optional[list] = None
    top_values: Optional[list] = None

    @classmethod
    def from_row(cls, row: dict, row_count: Optional[float], histogram=None, top_values=None) -> "ColumnStats":
        """From a column_statistics row (and the table's row count)."""
        data_type = row.get("data_type")
        nulls = row.get("null_count")
        return cls(
            data_type=data_type,
            null_fraction=(nulls / row_count if row_count else 0.0)
            if nulls is not None and row_count is not None
            else None,
            distinct_count=row.get("distinct_count"),
            min=parse_value(row.get("min_value"), data_type),
            max=parse_value(row.get("max_value"), data_type),
            avg_len=row.get("avg_len"),
            max_len=row.get("max_len"),
            histogram=histogram,
            top_values=top_values,
        )

    @classmethod
    def literal(cls, value: Any, data_type: Optional[str]) -> "ColumnStats":
        """A constant: one value (none for NULL) on every row."""
        if value is None:
            return cls(data_type=data_type, null_fraction=1.0, distinct_count=0, constant=True)
        width = fixed_width(data_type) or len(str(value).encode("utf-8"))
        return cls(data_type=data_type, null_fraction=0.0, distinct_count=1, min=value, max=value,
                   avg_len=width, max_len=width, constant=True)

    @classmethod
    def unknown(cls, data_type: Optional[str] = None, derived_from: tuple = ()) -> "ColumnStats":
        return cls(data_type=data_type, accuracy=None, derived_from=derived_from)

    def is_known(self) -> bool:
        return self.accuracy is not None and any(getattr(self, name) is not None for name in STATISTICS)

    def replace(self, **changes: Any) -> "ColumnStats":
        return dataclasses.replace(self, **changes)
