"""Every built-in rule through SQL (sqlglot's parse included), and every behaviour on its own."""

from __future__ import annotations

import datetime

import pytest

from dbt_analyze.column_stats import ColumnStats
from dbt_analyze.estimate import RelationStats, estimate_query
from dbt_analyze.function_rules import FunctionRules, RuleError

D = datetime.date
TABLE = RelationStats(1000, {
    "name": ColumnStats("string", 0.1, 50, "ann", "zoe", 4.5, 9, derived_from=("s.t.name",)),
    "n": ColumnStats("int", 0.0, 100, 1, 100, 4, 4, derived_from=("s.t.n",)),
    "x": ColumnStats("double", 0.2, 500, -5.0, 20.5, 8, 8, derived_from=("s.t.x",)),
    "d": ColumnStats("date", 0.0, 90, D(2024, 1, 1), D(2024, 3, 30), 4, 4, derived_from=("s.t.d",)),
    "ts": ColumnStats("timestamp", 0.0, 1000, datetime.datetime(2024, 1, 1, 10), datetime.datetime(2024, 1, 2, 9), 8, 8),
    "flag": ColumnStats("boolean", 0.5, 2, False, True, 1, 1),
})

# expression -> the statistics it must have (a subset); one case per built-in rule at least
CASES = {
    "upper(name)": dict(distinct_count=50, null_fraction=0.1, max="ZOE", accuracy="high"),
    "ucase(name)": dict(min="ANN"),
    "lower(name)": dict(min="ann", avg_len=4.5),
    "initcap(name)": dict(distinct_count=50, max_len=9, min=None),
    "trim(name)": dict(distinct_count=50, max_len=9),
    "ltrim(name)": dict(distinct_count=50, accuracy="high"),
    "reverse(name)": dict(distinct_count=50, accuracy="accurate"),
    "concat(name, '-', name)": dict(distinct_count=101, avg_len=10.0, null_fraction=0.2, accuracy="medium"),
    "concat_ws('-', name, name)": dict(distinct_count=101, null_fraction=0),
    "substr(name, 1, 2)": dict(distinct_count=50, max_len=9, accuracy="low"),
    "length(name)": dict(distinct_count=10, null_fraction=0.1, data_type="int"),
    "md5(name)": dict(distinct_count=50, max_len=32, accuracy="accurate"),
    "sha1(name)": dict(max_len=40),
    "sha2(name, 256)": dict(max_len=64, accuracy="high"),
    "hash(name)": dict(distinct_count=50, null_fraction=0, data_type="int"),
    "xxhash64(n)": dict(distinct_count=100, data_type="bigint"),
    "crc32(name)": dict(distinct_count=50, null_fraction=0.1),
    "abs(x)": dict(min=0.0, max=20.5, accuracy="medium"),
    "round(x, 1)": dict(distinct_count=256, min=-5.0, max=20.5),
    "floor(x)": dict(distinct_count=26, min=-5, max=20),
    "ceil(x)": dict(distinct_count=27, min=-5, max=21),
    "cast(n as bigint)": dict(distinct_count=100, max_len=8, accuracy="accurate", data_type="bigint"),
    "cast(x as int)": dict(distinct_count=26, min=-5, max=20, accuracy="medium"),
    "cast(d as timestamp)": dict(min=datetime.datetime(2024, 1, 1), accuracy="accurate"),
    "cast(n as string)": dict(distinct_count=100, accuracy="high", data_type="string"),
    "n + 1": dict(min=2, max=101, distinct_count=100, accuracy="accurate"),
    "n - 1": dict(min=0, max=99),
    "n * 2": dict(min=2, max=200),
    "n / 2": dict(min=0.5, max=50.0, data_type="double"),
    "n + n": dict(accuracy="low"),
    "n % 7": dict(distinct_count=7),
    "-n": dict(min=-100, max=-1, distinct_count=100),
    "coalesce(x, 0)": dict(null_fraction=0.0, distinct_count=501, min=-5.0, max=20.5),
    "nvl(x, 0)": dict(null_fraction=0.0),
    "nullif(name, 'x')": dict(distinct_count=50, accuracy="medium"),
    "if(n > 50, 'a', 'b')": dict(distinct_count=2, null_fraction=0, min="a", max="b"),
    "case when n > 50 then 'a' when n > 10 then 'b' end": dict(distinct_count=2, null_fraction=None),
    "case when n > 50 then name else 'none' end": dict(distinct_count=51, max_len=9),
    "greatest(n, x)": dict(accuracy="low", max=100),
    "least(n, x)": dict(accuracy="low", min=-5.0),
    "isnull(x)": dict(distinct_count=2, null_fraction=0, data_type="boolean"),
    "isnull(n)": dict(distinct_count=1),
    "x is not null": dict(distinct_count=2, accuracy="accurate"),
    "n = 1": dict(distinct_count=2, null_fraction=0, data_type="boolean"),
    "n > 1 and flag": dict(null_fraction=0.5, accuracy="high"),
    "not flag": dict(null_fraction=0.5, distinct_count=2),
    "year(d)": dict(distinct_count=1, min=2024, max=2024),
    "quarter(d)": dict(distinct_count=1),
    "month(d)": dict(distinct_count=3),
    "day(d)": dict(distinct_count=31),
    "hour(ts)": dict(distinct_count=24),
    "to_date(ts)": dict(distinct_count=2, min=D(2024, 1, 1), max=D(2024, 1, 2)),
    "date_trunc('month', d)": dict(distinct_count=3, max=datetime.datetime(2024, 3, 1), data_type="timestamp"),
    "trunc(d, 'MM')": dict(distinct_count=3, max=D(2024, 3, 1), data_type="date"),
    "date_add(d, 1)": dict(min=D(2024, 1, 2), max=D(2024, 3, 31), distinct_count=90),
}


@pytest.mark.parametrize("expression", CASES)
def test_built_in_rule(expression):
    column = estimate_query(f"select {expression} as c from s.t", {("s", "t"): TABLE}, FunctionRules.load()).columns["c"]
    for statistic, expected in CASES[expression].items():
        actual = getattr(column, statistic)
        assert actual == pytest.approx(expected) if isinstance(expected, float) else actual == expected, (statistic, column)


def test_every_built_in_rule_has_a_case():
    rules = FunctionRules.load()
    tested = set()
    for expression in CASES:
        name = expression.split("(")[0].strip().lower()
        tested.add(rules.get(name)["name"] if rules.get(name) else name)
    operators = {"+", "-", "*", "/", "%", "=", "negative", "not", "case", "if", "isnotnull"}
    cast_rules = {"cast_widening", "cast_narrowing", "cast_to_string"}
    built_in = {rule["name"] for rule in rules.functions.values()}
    assert built_in - tested - operators - cast_rules == set()


# --- behaviours, one rule each ----------------------------------------------------------------

A = ColumnStats("string", 0.1, 10, "a", "m", 3.0, 5)
B = ColumnStats("string", 0.3, 20, "c", "z", 6.0, 8)
I = ColumnStats("int", 0.0, 40, 1, 40, 4, 4)


def apply(arguments, args=(A, B), constant=None, rows=100, **rule):
    rules = FunctionRules({"f": {"accuracy": "high", **rule, "arguments": arguments, "constant": constant or {}}})
    return rules.apply("f", list(args), rows)


@pytest.mark.parametrize("behaviour,statistic,expected", [
    ("source", "distinct_count", 10),
    ("max_over_arguments", "distinct_count", 20),
    ("min_over_arguments", "min", "a"),
    ("max_over_arguments", "max", "z"),
    ("sum_over_arguments", "distinct_count", 30),
    ("sum_over_arguments", "null_fraction", 0.4),
    ("product_over_arguments", "null_fraction", 0.03),
    ("row_count", "distinct_count", 100),
    ("max_varchar_width", "max_len", 8),
    ("unknown", "distinct_count", None),
])
def test_behaviour(behaviour, statistic, expected):
    result = apply([{statistic: behaviour}, {statistic: behaviour}])
    assert getattr(result, statistic) == pytest.approx(expected) if isinstance(expected, float) else getattr(result, statistic) == expected


def test_sum_is_bounded_by_rows_and_one():
    assert apply([{"distinct_count": "sum_over_arguments"}] * 2, rows=25).distinct_count == 25
    heavy = ColumnStats("string", 0.8, 1)
    assert apply([{"null_fraction": "sum_over_arguments"}] * 2, args=(heavy, heavy)).null_fraction == 1.0


def test_non_null_row_count_and_type_width():
    result = apply([{"null_fraction": "source", "distinct_count": "non_null_row_count", "avg_len": "type_width"}], args=(I,), returns="bigint")
    assert (result.distinct_count, result.avg_len, result.data_type) == (100, 8, "bigint")


def test_function_of_bounds_span_and_null_split():
    rules = FunctionRules.load()
    assert rules.apply("floor", [ColumnStats("double", 0.0, 1000, 0.5, 9.5)], 5000).distinct_count == 10
    assert rules.apply("isnull", [ColumnStats("int", 1.0, 0)], 10).distinct_count == 1
    assert rules.apply("isnull", [ColumnStats("int", 0.5, 3)], 10).distinct_count == 2


def test_constant_wins_and_all_source():
    result = apply([{"all": "source"}], args=(A,), constant={"distinct_count": 7})
    assert (result.distinct_count, result.max, result.max_len) == (7, "m", 5)


def test_several_columns_lower_the_accuracy():
    one_column = apply([{"all": "source"}], args=(A, ColumnStats.literal("x", "string")), several_columns_accuracy="low")
    two_columns = apply([{"all": "source"}], args=(A, B), several_columns_accuracy="low")
    assert (one_column.accuracy, two_columns.accuracy) == ("high", "low")


def test_accuracy_is_the_lowest_of_rule_and_inputs():
    assert apply([{"all": "source"}], args=(A.replace(accuracy="medium"),)).accuracy == "medium"


def test_lowest_accuracy_applied():
    assert FunctionRules.load(min_accuracy="high").apply("concat", [A, B], 100) is None
    assert FunctionRules.load(min_accuracy="medium").apply("concat", [A, B], 100) is not None
    assert FunctionRules.load(min_accuracy="none").apply("upper", [A], 100) is None


def test_users_rules_extend_and_override(tmp_path):
    path = tmp_path / "rules.yml"
    path.write_text("functions:\n  my_mask:\n    accuracy: accurate\n    arguments: [{all: source}]\n"
                    "    constant: {max_len: 12}\n")
    rules = FunctionRules.load([path, {"upper": {"accuracy": "low", "arguments": [{"all": "source"}]}}])
    assert rules.apply("my_mask", [A], 100).max_len == 12
    assert rules.apply("upper", [A], 100).accuracy == "low"


@pytest.mark.parametrize("rule,message", [
    ({"accuracy": "sometimes"}, "accuracy must be one of"),
    ({"accuracy": "high", "arguments": [{"ndv": "source"}]}, "unknown statistic 'ndv'"),
    ({"accuracy": "high", "arguments": [{"distinct_count": "guess"}]}, "unknown behaviour 'guess'"),
    ({"accuracy": "high", "constant": {"width": 3}}, "unknown constant statistic 'width'"),
])
def test_bad_rules_are_named(rule, message):
    with pytest.raises(RuleError, match=message):
        FunctionRules({"f": rule})
    with pytest.raises(RuleError, match="'f'"):
        FunctionRules({"f": rule})


def test_bad_rules_file(tmp_path):
    with pytest.raises(RuleError, match="no function rules file"):
        FunctionRules.load([tmp_path / "missing.yml"])
    (tmp_path / "flat.yml").write_text("upper: {accuracy: high}\n")
    with pytest.raises(RuleError, match="'functions:' mapping"):
        FunctionRules.load([tmp_path / "flat.yml"])
    with pytest.raises(RuleError, match="'sometimes' is not one of"):
        FunctionRules.load(min_accuracy="sometimes")
