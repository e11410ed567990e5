"""Rules that carry column statistics through scalar functions (Presto's function-statistics RFC).

The rules are data: ``function_rules.yml`` beside this module, which users extend or override.
``FunctionRules.apply`` turns the statistics of a call's arguments into the statistics of its
result, or None when the function has no rule or its rule is less accurate than allowed.

>>> rules = FunctionRules.load()
>>> name = ColumnStats("string", null_fraction=0.1, distinct_count=50, min="ann", max="zoe",
...                    avg_len=4.5, max_len=9)
>>> md5 = rules.apply("md5", [name], row_count=1000)
>>> md5.distinct_count, md5.null_fraction, md5.max_len, md5.accuracy
(50, 0.1, 32, 'accurate')
>>> rules.apply("upper", [name], row_count=1000).max
'ZOE'
"""

from __future__ import annotations

import datetime
import math
from decimal import Decimal
from pathlib import Path
from typing import Any, Callable, Iterable, Optional

import yaml

from dbt_analyze.column_stats import ACCURACY_LEVELS, STATISTICS, ColumnStats, lowest_accuracy
from dbt_analyze.spark_types import INTEGER_TYPES, base_type, fixed_width

BUILT_IN_RULES = Path(__file__).with_name("function_rules.yml")
PROPAGATION_LEVELS = ACCURACY_LEVELS + ("none",)


class RuleError(ValueError):
    """A rule set that cannot be used; the message names the function and the problem."""


class FunctionRules:
    """The rules by function name (aliases resolved), and the lowest accuracy applied."""

    BEHAVIOURS = {"source", "max_over_arguments", "min_over_arguments", "sum_over_arguments",
                  "product_over_arguments", "row_count", "non_null_row_count", "type_width",
                  "max_varchar_width", "function_of_bounds", "span", "null_split", "unknown"}

    def __init__(self, functions: dict, min_accuracy: str = "low"):
        if min_accuracy not in PROPAGATION_LEVELS:
            raise RuleError(f"propagation accuracy {min_accuracy!r} is not one of {', '.join(PROPAGATION_LEVELS)}")
        self.min_accuracy = min_accuracy
        self.functions: dict[str, dict] = {}
        for name, rule in functions.items():
            self.add(name, rule)

    @classmethod
    def load(cls, extra: Iterable[dict | str | Path] = (), min_accuracy: str = "low") -> "FunctionRules":
        """The built-in rules, then each extra rule set (a mapping, or a YAML file) over them."""
        functions = dict(_read(BUILT_IN_RULES))
        for more in extra:
            functions.update(
                _read(more) if isinstance(more, (str, Path)) else (more or {}).get("functions", more or {})
            )
        return cls(functions, min_accuracy)

    def add(self, name: str, rule: dict) -> None:
        if not isinstance(rule, dict) or rule.get("accuracy") not in ACCURACY_LEVELS:
            raise RuleError(f"function rule {name!r}: accuracy must be one of {', '.join(ACCURACY_LEVELS)}")
        for spec in list(rule.get("arguments", [])) + [rule.get("each_argument", {})]:
            for statistic, behaviour in (spec or {}).items():
                if statistic != "all" and statistic not in STATISTICS:
                    raise RuleError(f"function rule {name!r}: unknown statistic {statistic!r}")
                if behaviour not in self.BEHAVIOURS:
                    raise RuleError(f"function rule {name!r}: unknown behaviour {behaviour!r} for {statistic}")
        for statistic in rule.get("constant", {}):
            if statistic not in STATISTICS:
                raise RuleError(f"function rule {name!r}: unknown constant statistic {statistic!r}")
        for key in [name] + list(rule.get("aliases", [])):
            self.functions[str(key).lower()] = dict(rule, name=name)

    def get(self, name: str) -> Optional[dict]:
        return self.functions.get(name.lower())

    def enabled(self) -> bool:
        return self.min_accuracy != "none"

    def allows(self, accuracy: Optional[str]) -> bool:
        """Whether estimates of this accuracy are applied."""
        return (self.enabled() and accuracy is not None
                and ACCURACY_LEVELS.index(accuracy) >= ACCURACY_LEVELS.index(self.min_accuracy))

    def apply(self, name: str, args: list[ColumnStats], row_count: Optional[float],
              output_type: Optional[str] = None) -> Optional[ColumnStats]:
        """The statistics of ``name(*args)``; None without a rule or below the lowest accuracy."""
        rule = self.get(name)
        if rule is None:
            return None
        columns = [arg for arg in args if not arg.constant]
        accuracy = rule["accuracy"] if len(columns) <= 1 else rule.get("several_columns_accuracy", rule["accuracy"])
        accuracy = lowest_accuracy(accuracy, *(arg.accuracy for arg in columns))
        if not self.allows(accuracy):
            return None
        data_type = output_type or rule.get("returns") or next((arg.data_type for arg in columns), None) \
            or (args[0].data_type if args else None)
        marks = _marks(rule, len(args))
        out: dict[str, Any] = dict(rule.get("constant", {}))
        # null_fraction first: non_null_row_count needs it
        for statistic in ("null_fraction",) + tuple(s for s in STATISTICS if s != "null_fraction"):
            if statistic in out:
                continue
            marked = [(args[i], behaviour) for i, behaviour in marks.get(statistic, [])]
            out[statistic] = _carry(statistic, marked, rule["name"], args, row_count, data_type, out)
        if out["distinct_count"] is not None and row_count is not None:
            out["distinct_count"] = min(out["distinct_count"], row_count * (1 - (out["null_fraction"] or 0)))
        if out["null_fraction"] == 1:  # NULL on every row (x = NULL): no value, so no bounds either
            out.update(distinct_count=0, min=None, max=None)
        derived = tuple(dict.fromkeys(source for arg in args for source in arg.derived_from))
        return ColumnStats(data_type=data_type, accuracy=accuracy, derived_from=derived,
                           constant=not columns and bool(args), **out)


def _read(path: str | Path) -> dict:
    path = Path(path).expanduser()
    if not path.is_file():
        raise RuleError(f"no function rules file at {path.resolve()}")
    document = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
    if not isinstance(document.get("functions"), dict):
        raise RuleError(f"{path}: a function rules file has a 'functions:' mapping at its top")
    return document["functions"]


def _marks(rule: dict, arg_count: int) -> dict[str, list[tuple[int, str]]]:
    """Per statistic, which arguments carry it and how."""
    marks: dict[str, list[tuple[int, str]]] = {}
    positional = rule.get("arguments", [])
    for index in range(arg_count):
        spec = dict(rule.get("each_argument", {}))
        spec.update(positional[index] if index < len(positional) else {})
        if spec.pop("all", None) == "source":
            spec = {**{statistic: "source" for statistic in STATISTICS}, **spec}
        for statistic, behaviour in spec.items():
            marks.setdefault(statistic, []).append((index, behaviour))
    return marks


def _carry(statistic: str, marked: list[tuple[ColumnStats, str]], name: str, args: list[ColumnStats],
           row_count: Optional[float], data_type: Optional[str], out: dict) -> Any:
    if not marked:
        return None
    behaviour = marked[0][1]
    values = [getattr(arg, statistic) for arg, _ in marked]
    known = None not in values
    if behaviour == "source":
        return values[0]
    if behaviour in ("max_over_arguments", "min_over_arguments"):
        present = [value for value in values if value is not None]
        # min/max over branches: NULL branches (a literal NULL) have no bounds and do not count
        if statistic in ("min", "max"):
            if any(value is None and not arg.constant for (arg, _), value in zip(marked, values)) or not present:
                return None
            values, known = present, True
        if not known:
            return None
        try:
            return max(values) if behaviour == "max_over_arguments" else min(values)
        except TypeError:  # values of different types
            return None
    if behaviour == "sum_over_arguments":
        if not known:
            return None
        total = sum(values)
        if statistic == "null_fraction":
            return min(total, 1.0)
        if statistic == "distinct_count" and row_count is not None:
            return min(total, row_count)
        return total
    if behaviour == "product_over_arguments":
        return math.prod(values) if known else None
    if behaviour == "row_count":
        return row_count
    if behaviour == "non_null_row_count":
        return None if row_count is None or out.get("null_fraction") is None else row_count * (1 - out["null_fraction"])
    if behaviour == "type_width":
        return fixed_width(data_type)
    if behaviour == "max_varchar_width":
        widths = [arg.max_len for arg in args if base_type(arg.data_type) in ("string", "varchar", "char")]
        return max(widths) if widths and None not in widths else None
    if behaviour == "null_split":
        fraction = marked[0][0].null_fraction
        return None if fraction is None else (1 if fraction in (0, 1) else 2)
    if behaviour == "span":
        arg = marked[0][0]
        span = _span(name, args, arg, data_type)
        if arg.distinct_count is None:
            return span
        return arg.distinct_count if span is None else min(arg.distinct_count, span)
    if behaviour == "function_of_bounds":
        bounds = _bounds(name, args, data_type)
        return None if bounds is None else bounds[0 if statistic == "min" else 1]
    return None  # unknown


# --- functions applied to bounds --------------------------------------------------------------

def _literal_value(args: list[ColumnStats], index: int) -> Any:
    return args[index].min if index < len(args) and args[index].constant else None


def _interval(name: str, args: list[ColumnStats]) -> Optional[tuple]:
    """Interval arithmetic over the arguments' [min, max]."""
    if len(args) != 2 or any(arg.min is None or arg.max is None for arg in args):
        return None
    (a_lo, a_hi), (b_lo, b_hi) = [(arg.min, arg.max) for arg in args]
    try:
        if name == "+":
            return a_lo + b_lo, a_hi + b_hi
        if name == "-":
            return a_lo - b_hi, a_hi - b_lo
        if name in ("*", "/"):
            if name == "/" and b_lo <= 0 <= b_hi:
                return None
            corners = [(x * y if name == "*" else x / y) for x in (a_lo, a_hi) for y in (b_lo, b_hi)]
            return min(corners), max(corners)
    except (TypeError, ArithmeticError):
        return None
    return None


def _truncate(value: Any, unit: str) -> Any:
    if isinstance(value, datetime.datetime):
        date = value.date()
    elif isinstance(value, datetime.date):
        date = value
    else:
        return None
    unit = unit.lower()
    if unit in ("year", "yyyy", "yy"):
        date = date.replace(month=1, day=1)
    elif unit == "quarter":
        date = date.replace(month=3 * ((date.month - 1) // 3) + 1, day=1)
    elif unit in ("month", "mon", "mm"):
        date = date.replace(day=1)
    elif unit == "week":
        date = date - datetime.timedelta(days=date.weekday())
    elif unit not in ("day", "dd"):
        return None  # units below a day: not needed for bounds that are dates
    return date


def _to_date(value: Any) -> Any:
    return value.date() if isinstance(value, datetime.datetime) else value if isinstance(value, datetime.date) else None


def _cast(value: Any, data_type: Optional[str]) -> Any:
    base = base_type(data_type)
    try:
        if base in INTEGER_TYPES:
            return int(value)
        if base in ("float", "double"):
            return float(value)
        if base == "decimal":
            return Decimal(str(value))
        if base == "date":
            return _to_date(value)
        if base in ("timestamp", "timestamp_ntz"):
            return value if isinstance(value, datetime.datetime) else datetime.datetime.combine(value, datetime.time())
    except (TypeError, ValueError, ArithmeticError):
        return None
    return None


def _bounds(name: str, args: list[ColumnStats], data_type: Optional[str]) -> Optional[tuple]:
    if name in ("+", "-", "*", "/"):
        return _interval(name, args)
    if name == "date_add":
        days = _literal_value(args, 1)
        return None if days is None or args[0].min is None else _interval("+", [
            args[0], ColumnStats.literal(datetime.timedelta(days=int(days)), "interval")])
    source = args[1] if name == "date_trunc" else args[0]
    lo, hi = source.min, source.max
    if lo is None or hi is None:
        return None
    if name == "abs":
        if lo <= 0 <= hi:
            return type(lo)(0), max(-lo, hi)
        return min(abs(lo), abs(hi)), max(abs(lo), abs(hi))
    unary: dict[str, Callable[[Any], Any]] = {
        "upper": lambda v: v.upper(), "lower": lambda v: v.lower(), "negative": lambda v: -v,
        "floor": math.floor, "ceil": math.ceil,
        "round": lambda v: round(v, int(_literal_value(args, 1) or 0)) if not isinstance(v, float) else float(
            Decimal(repr(v)).quantize(Decimal(1).scaleb(-int(_literal_value(args, 1) or 0)), rounding="ROUND_HALF_UP")),
        "year": lambda v: v.year, "to_date": _to_date,
        "trunc": lambda v: _truncate(v, str(_literal_value(args, 1) or "")),
        "date_trunc": lambda v: _cast(_truncate(v, str(_literal_value(args, 0) or "")), "timestamp"),
        "cast_widening": lambda v: _cast(v, data_type), "cast_narrowing": lambda v: _cast(v, data_type),
    }
    function = unary.get(name)
    if function is None:
        return None
    try:
        low, high = function(lo), function(hi)
    except (TypeError, ValueError, ArithmeticError, AttributeError):
        return None
    if low is None or high is None:
        return None
    return (low, high) if name != "negative" else (high, low)


def _months(value: datetime.date) -> int:
    return value.year * 12 + value.month - 1


def _span(name: str, args: list[ColumnStats], source: ColumnStats, data_type: Optional[str]) -> Optional[float]:
    """How many values ``name`` can take over the source's [min, max]; None when not known."""
    lo, hi = source.min, source.max
    if name == "length":
        return None if source.max_len is None else source.max_len + 1
    if name == "%":
        modulus = _literal_value(args, 1)
        if modulus in (None, 0):
            return None
        return abs(modulus) if lo is not None and lo >= 0 else 2 * abs(modulus) - 1
    if lo is None or hi is None:
        return None
    bounds = _bounds(name, args, data_type)
    if name in ("floor", "ceil") or (name == "cast_narrowing" and base_type(data_type) in INTEGER_TYPES):
        return None if bounds is None else int(bounds[1]) - int(bounds[0]) + 1
    if name == "round":
        digits = int(_literal_value(args, 1) or 0)
        return None if bounds is None else round((float(bounds[1]) - float(bounds[0])) * 10 ** digits) + 1
    if name == "year":
        return None if bounds is None else bounds[1] - bounds[0] + 1
    if isinstance(lo, datetime.date):
        first, last = _to_date(lo), _to_date(hi)
        if name in ("to_date", "day", "dayofmonth") or (name == "cast_narrowing" and base_type(data_type) == "date"):
            days = (last - first).days + 1
            return days if name == "to_date" or name == "cast_narrowing" else min(days, 31)
        if name == "month":
            return min(_months(last) - _months(first) + 1, 12)
        if name == "quarter":
            return min((_months(last) // 3) - (_months(first) // 3) + 1, 4)
        if name == "hour" and isinstance(lo, datetime.datetime):
            return min(int((hi - lo).total_seconds() // 3600) + 2, 24)
        if name in ("date_trunc", "trunc"):
            unit = str(_literal_value(args, 0 if name == "date_trunc" else 1) or "").lower()
            if unit in ("year", "yyyy", "yy"):
                return last.year - first.year + 1
            if unit == "quarter":
                return _months(last) // 3 - _months(first) // 3 + 1
            if unit in ("month", "mon", "mm"):
                return _months(last) - _months(first) + 1
            if unit == "week":
                return (last - first).days // 7 + 2
            if unit in ("day", "dd"):
                return (last - first).days + 1
    return None
