"""The estimator: relations (CTEs, subqueries, joins, unions), filters, GROUP BY, and models."""

from __future__ import annotations

import pytest

import datetime
import math

from dbt_analyze.estimate import EstimateError, RelationStats, estimate_models, estimate_query, estimate_rows
from dbt_analyze.function_rules import FunctionRules
from dbt_analyze.selectivity import histogram_equality_share

ORDERS = {
    "schema": "shop", "name": "orders", "row_count": 1000,
    "columns": [
        {"column_name": "id", "data_type": "int", "null_count": 0, "distinct_count": 1000, "min_value": "1", "max_value": "1000"},
        {"column_name": "status", "data_type": "string", "null_count": 100, "distinct_count": 4, "min_value": "new",
         "max_value": "shipped", "avg_len": 6.0, "max_len": 7},
        {"column_name": "amount", "data_type": "decimal(10,2)", "null_count": 200, "distinct_count": 700,
         "min_value": "0.00", "max_value": "100.00"},
        {"column_name": "customer", "data_type": "string", "null_count": 0, "distinct_count": 100},
    ],
    # 800 non-null amounts, skewed: half of them below 10
    "histograms": {"amount": [{"lower_bound": "0.00", "upper_bound": "10.00", "row_count": 400, "distinct_count": 300},
                              {"lower_bound": "10.00", "upper_bound": "100.00", "row_count": 400, "distinct_count": 400}]},
    "top_values": {"status": [{"value": "shipped", "frequency": 600}, {"value": "new", "frequency": 200},
                              {"value": "paid", "frequency": 90}, {"value": "returned", "frequency": 10}]},
}


def estimate(sql, min_accuracy="low"):
    inputs = {("shop", "orders"): RelationStats.from_statistics("shop", "orders", ORDERS)}
    return estimate_query(sql, inputs, FunctionRules.load(min_accuracy=min_accuracy))


def test_columns_pass_through_unchanged():
    result = estimate("select id, status as state from `shop`.`orders`")
    assert result.row_count == 1000 and list(result.columns) == ["id", "state"]
    state = result.columns["state"]
    assert (state.distinct_count, state.null_fraction, state.accuracy, state.derived_from) == (4, 0.1, "accurate", ("shop.orders.status",))


def test_star_ctes_and_subqueries():
    result = estimate("with o as (select * from shop.orders) select s from (select upper(status) as s from o) sub")
    assert result.columns["s"].distinct_count == 4 and result.row_count == 1000


def test_equality_from_top_values():
    result = estimate("select status, id from shop.orders where status = 'paid'")
    assert result.row_count == pytest.approx(90) and result.row_accuracy == "high"
    assert result.columns["status"].distinct_count == 1 and result.columns["status"].null_fraction == 0


def test_equality_on_a_collated_column_matches_top_values_under_its_collation():
    # UTF8_LCASE: 'SHIPPED' is the top value 'shipped', and 'Zed' is not ruled out by min 'a' (case blind order)
    tags = {"schema": "shop", "name": "tags", "row_count": 100,
            "columns": [{"column_name": "tag", "data_type": "string collate utf8_lcase", "null_count": 0, "distinct_count": 11,
                         "min_value": "a", "max_value": "zed"}],
            "top_values": {"tag": [{"value": "shipped", "frequency": 50}]}}
    inputs = {("shop", "tags"): RelationStats.from_statistics("shop", "tags", tags)}
    rules = FunctionRules.load(min_accuracy="low")
    assert estimate_query("select tag from shop.tags where tag = 'SHIPPED'", inputs, rules).row_count == pytest.approx(50)
    assert estimate_query("select tag from shop.tags where tag = 'Zed'", inputs, rules).row_count == pytest.approx(5)


def test_range_from_histogram():
    result = estimate("select amount from shop.orders where amount < 10")
    assert result.row_count == pytest.approx(400)
    assert result.columns["amount"].distinct_count == 300
    assert str(result.columns["amount"].max) == "10"


def test_equality_inside_a_histogram_bin_and_outside_the_range():
    assert estimate("select id from shop.orders where amount = 55").row_count == pytest.approx(1)  # 400 rows / 400 values
    assert estimate("select id from shop.orders where amount > 500").row_count == 0


def test_in_list_between_and_nulls():
    assert estimate("select id from shop.orders where status in ('new', 'paid')").row_count == pytest.approx(290)
    # the 400 rows of (10, 100] and 10.00's share of the first bin: one of its 1,001 cents, rounded up
    assert estimate("select id from shop.orders where amount between 10 and 100").row_count == 401
    assert estimate("select id from shop.orders where amount is null").row_count == pytest.approx(200)
    assert estimate("select id from shop.orders where amount is not null").row_count == pytest.approx(800)


def test_equality_shares_a_bin_bounds_error_with_its_neighbours():
    # 1M rows on the integers 0..9999 (100 rows each) in 254 bins of equal rows whose bounds are
    # off by up to 1% of the rows either way (100 values), as a KLL sketch's quantiles may be
    bounds = [0.0] + [min(max(round(i * 10_000 / 254 + 100 * math.sin(i)), 0), 9999) for i in range(1, 254)] + [9999.0]
    bounds = sorted(bounds)
    bins = [{"lower": low, "upper": high, "row_count": 1_000_000 / 254, "distinct_count": max(high - low, 1)}
            for low, high in zip(bounds, bounds[1:])]
    one_bin = [bin_["row_count"] / bin_["distinct_count"] for bin_ in bins]
    assert max(one_bin) / min(one_bin) > 10, "a single bin's rows over its values are far off"
    estimates = [histogram_equality_share(bins, value) * 1_000_000 for value in range(0, 10_000, 7)]
    assert 70 < min(estimates) and max(estimates) < 140, (min(estimates), max(estimates))
    assert histogram_equality_share(bins, 10_000.5) is None


def test_a_range_counts_the_top_values_in_it_by_their_own_counts():
    # 1000 rows of n: the value 1 on 650 (six bins and half of the seventh), 2..351 once each
    bounds = [1, 1, 1, 1, 1, 1, 1, 51, 151, 251, 351]
    table = {"schema": "shop", "name": "events", "row_count": 1000,
             "columns": [{"column_name": "n", "data_type": "int", "null_count": 0, "distinct_count": 351,
                          "min_value": "1", "max_value": "351"}],
             "histograms": {"n": [{"lower_bound": str(low), "upper_bound": str(high), "row_count": 100,
                                   "distinct_count": max(high - low, 1)} for low, high in zip(bounds, bounds[1:])]},
             "top_values": {"n": [{"value": "1", "frequency": 650}]}}
    inputs = {("shop", "events"): RelationStats.from_statistics("shop", "events", table)}

    def rows(sql):
        return estimate_query(sql, inputs, FunctionRules.load()).row_count

    # the bins alone would say 600 and 400: the value 1's last 50 rows share a bin with 2..51
    assert rows("select n from shop.events where n <= 1") == pytest.approx(650)
    assert rows("select n from shop.events where n > 1") == pytest.approx(350)
    assert rows("select n from shop.events where n between 1 and 351") == pytest.approx(1000)


def test_a_range_on_integers_and_dates_counts_its_values_not_the_distance_between_its_ends():
    # 1,000 rows: the integers 1..100 ten times each, and a date a day for 100 days ten times each,
    # in bins of 25 values; Spark's CBO interpolates the distance (9 of 25) where ten values are meant
    days = [str(datetime.date(2024, 1, 1) + datetime.timedelta(days=n)) for n in (0, 25, 50, 75, 99)]
    table = {"schema": "shop", "name": "ticks", "row_count": 1000,
             "columns": [{"column_name": "n", "data_type": "int", "null_count": 0, "distinct_count": 100,
                          "min_value": "1", "max_value": "100"},
                         {"column_name": "d", "data_type": "date", "null_count": 0, "distinct_count": 100,
                          "min_value": days[0], "max_value": days[-1]}],
             "histograms": {"n": [{"lower_bound": str(low), "upper_bound": str(low + 25 - (low == 1)), "row_count": 250,
                                   "distinct_count": 25} for low in (1, 25, 50, 75)],
                            "d": [{"lower_bound": low, "upper_bound": high, "row_count": 250, "distinct_count": 25}
                                  for low, high in zip(days, days[1:])]}}
    inputs = {("shop", "ticks"): RelationStats.from_statistics("shop", "ticks", table)}

    def rows(sql):
        return estimate_query(sql, inputs, FunctionRules.load()).row_count

    assert rows("select n from shop.ticks where n between 31 and 40") == 100
    assert rows("select n from shop.ticks where n < 41") == 400 and rows("select n from shop.ticks where n > 90") == 100
    assert rows("select n from shop.ticks where n <= 1") == 10
    assert rows("select d from shop.ticks where d between date'2024-02-01' and date'2024-02-10'") == 100


def test_range_without_histogram_uses_min_and_max():
    result = estimate("select id from shop.orders where id <= 250")
    assert result.row_count == pytest.approx(250, rel=0.01) and result.row_accuracy == "medium"


def test_predicates_on_two_columns_are_independent_and_medium():
    result = estimate("select id, customer from shop.orders where status = 'shipped' and amount < 10")
    assert result.row_count == pytest.approx(1000 * 0.6 * 0.4) and result.row_accuracy == "medium"
    # other columns: values that keep a row when 24% of the rows are kept at random
    assert 80 < result.columns["customer"].distinct_count < 100
    assert result.columns["customer"].accuracy == "medium"


def test_unsupported_predicate_makes_rows_unknown():
    result = estimate("select id from shop.orders where length(status) > 3")
    assert result.row_count is None and result.columns["id"].accuracy is None


def test_group_by():
    result = estimate("select status, count(*) as n from shop.orders group by status")
    assert result.row_count == 5  # four values and NULL
    assert result.columns["status"].null_fraction == pytest.approx(0.2)
    assert result.columns["n"].null_fraction == 0


def test_an_aggregate_without_group_by_is_one_row():
    result = estimate("select count(*) as n, max(amount) as top from shop.orders where status = 'paid'")
    assert (result.row_count, result.row_accuracy) == (1, "accurate")
    assert result.columns["n"].data_type == "bigint" and result.columns["top"].distinct_count is None
    # a window's aggregate or a subquery's keeps the rows
    assert estimate("select id, sum(amount) over () as total from shop.orders").row_count == 1000
    assert estimate("select id, (select max(id) from shop.orders) as top from shop.orders").row_count == 1000


def test_join_keeps_bounds_but_not_null_fractions():
    result = estimate("select a.status, b.id from shop.orders a join shop.orders b on a.id = b.id")
    assert (result.row_count, result.row_accuracy) == (1000, "low")  # id is a key: one match per row
    status = result.columns["status"]
    assert status.accuracy == "low" and status.null_fraction is None


@pytest.mark.parametrize("join, rows", [
    ("join shop.customers c on o.customer = c.name", 1000),             # to a key: each order matches once
    ("left join shop.customers c on o.customer = c.name and o.id > 5", 1000),
    ("join shop.customers c using (customer)", 1000),
    ("join shop.orders p on o.status = p.status", 1000 * 1000 / 4),     # 4 statuses: |L|·|R| / 4
    ("join shop.customers c on o.id = c.region_id", 1000 * 100 / 1000),
    ("left join shop.customers c on o.id = c.region_id", 1000),           # 100 matches, but every order is kept
    ("right join shop.customers c on o.id = c.region_id", 100),
    ("cross join shop.customers c", 1000 * 100),
    (", shop.customers c where o.customer = c.name", 1000),           # FROM a, b WHERE: the WHERE's keys
    (", shop.customers c where o.customer = c.name and o.id > 500", math.ceil(1000 * 500 / 999)),  # ids 1..1000; whole rows
    ("left semi join shop.customers c on o.customer = c.name", None),   # semi and anti joins are not estimated
    ("join shop.customers c on o.id > c.region_id", None),              # no equality between the sides
])
def test_join_rows_from_the_keys_distinct_counts(join, rows):
    customers = {"schema": "shop", "name": "customers", "row_count": 100, "columns": [
        {"column_name": name, "data_type": "string", "null_count": 0, "distinct_count": 100} for name in ("name", "customer", "region_id")]}
    inputs = {("shop", "orders"): RelationStats.from_statistics("shop", "orders", ORDERS),
              ("shop", "customers"): RelationStats.from_statistics("shop", "customers", customers)}
    result = estimate_query(f"select o.id from shop.orders o {join}", inputs, FunctionRules.load(min_accuracy="low"))
    assert result.row_count == (pytest.approx(rows) if rows is not None else None)
    assert result.row_accuracy == ("low" if rows is not None else None)


def test_union_all_limit_distinct():
    assert estimate("select id from shop.orders union all select id from shop.orders").row_count == 2000
    assert estimate("select id from shop.orders limit 10").row_count == 10
    assert estimate("select distinct status from shop.orders").row_count == 4


EVENTS = {
    "schema": "shop", "name": "events", "row_count": 10,
    "columns": [
        {"column_name": "id", "data_type": "bigint", "null_count": 0, "distinct_count": 10, "min_value": "1", "max_value": "10"},
        {"column_name": "payload", "data_type": "struct<a:int,b:string>", "null_count": 2},
        {"column_name": "tags", "data_type": "array<string>", "null_count": 1, "avg_len": 3, "max_len": 5},
        {"column_name": "code", "data_type": "string", "null_count": 0, "distinct_count": 4, "min_value": "a", "max_value": "d",
         "avg_len": 1.0, "max_len": 1},
    ],
}


@pytest.mark.parametrize("sql, unknown", [
    ("select id, payload.a as a, e.payload.b as b from shop.events e", ["a", "b"]),           # a struct's fields
    ("select id, struct(id, code) as s, named_struct('x', id).x as x from shop.events", ["s", "x"]),
    ("select id, regexp_extract(payload.b, '(a)', 1) as r, tags[0] as t from shop.events", ["r", "t"]),
    ("select id, id div 2 as half, id & 1 as odd, ~id as inverted, id << 1 as doubled from shop.events", ["half", "odd", "inverted", "doubled"]),
    ("select id, payload.* from shop.events", []),                                             # the fields' names are not known
])
def test_nested_fields_and_operators_without_a_rule_are_unknown_not_an_error(sql, unknown):
    inputs = {("shop", "events"): RelationStats.from_statistics("shop", "events", EVENTS)}
    result = estimate_query(sql, inputs, FunctionRules.load(min_accuracy="low"))
    assert list(result.columns) == ["id", *unknown] and result.row_count == 10
    assert result.columns["id"].distinct_count == 10
    assert all(result.columns[name].distinct_count is None for name in unknown)


def test_concatenation_operator_and_exponent_literals_as_spark_reads_them():
    inputs = {("shop", "events"): RelationStats.from_statistics("shop", "events", EVENTS)}
    result = estimate_query("select code || '-x' as tagged, concat(code, '-x') as called, 1e3 as thousand, 2.5E-1 as quarter"
                            " from shop.events", inputs, FunctionRules.load(min_accuracy="low"))
    tagged, called, thousand, quarter = (result.columns[name] for name in ("tagged", "called", "thousand", "quarter"))
    assert tagged == called and tagged.max_len == 3 and tagged.derived_from == ("shop.events.code",)
    assert (thousand.data_type, thousand.min, quarter.data_type, quarter.max) == ("double", 1000.0, "double", 0.25)


# typeof(<expression>) on Spark 4.3, a decimal(10,2), b bigint, i int, d double, t tinyint, w decimal(38,10)
SPARK_TYPES = {"a * 2": "decimal(12,2)", "a + 2": "decimal(11,2)", "a * 1.5": "decimal(13,3)", "b * 1.5": "decimal(23,1)",
               "b + 1": "bigint", "i + b": "bigint", "i * 1.5": "decimal(13,1)", "a + b": "decimal(23,2)", "a * b": "decimal(31,2)",
               "a - i": "decimal(13,2)", "a / 2": "decimal(14,6)", "i / 2": "double", "b / b": "double", "a / a": "decimal(23,13)",
               "d * a": "double", "t + t": "tinyint", "i % 3": "int", "a % 3": "decimal(3,2)", "w * w": "decimal(38,6)",
               "w + w": "decimal(38,9)", "w * a": "decimal(38,6)", "i * 1e3": "double", "a * 100": "decimal(14,2)",
               "i div 2": "bigint", "i + 1.25": "decimal(13,2)"}


def test_arithmetic_has_the_type_spark_gives_it():
    numbers = {"schema": "shop", "name": "numbers", "row_count": 1, "columns": [
        {"column_name": name, "data_type": data_type, "null_count": 0, "distinct_count": 1}
        for name, data_type in (("a", "decimal(10,2)"), ("b", "bigint"), ("i", "int"), ("d", "double"), ("t", "tinyint"),
                                ("w", "decimal(38,10)"))]}
    inputs = {("shop", "numbers"): RelationStats.from_statistics("shop", "numbers", numbers)}
    projections = ", ".join(f"{expression} as e{index}" for index, expression in enumerate(SPARK_TYPES))
    result = estimate_query(f"select {projections} from shop.numbers", inputs, FunctionRules.load(min_accuracy="low"))
    assert {expression: result.columns[f"e{index}"].data_type for index, expression in enumerate(SPARK_TYPES)} == SPARK_TYPES


# The names Spark 4.3 gives these expressions without an alias (spark.sql("select <e> from t").columns)
SPARK_NAMES = {"cast(id as int)": "id", "try_cast(name as int)": "name", "cast(amount as decimal(10,2))": "amount",
               "s.a": "a", "upper(name)": "upper(name)", "id + 1": "(id + 1)", "id * 2 + 1": "((id * 2) + 1)", "-id": "(- id)",
               "id div 2": "(id div 2)", "id > 1": "(id > 1)", "count(*)": "count(1)", "sum(amount)": "sum(amount)",
               "1": "1", "'x'": "x", "null": "NULL", "true": "true", "coalesce(name, 'z')": "coalesce(name, z)",
               "concat(name, '-', id)": "concat(name, -, id)", "name || 'x'": "concat(name, x)", "substr(name, 1, 2)": "substr(name, 1, 2)",
               "round(amount, 1)": "round(amount, 1)", "lower(trim(name))": "lower(trim(name))", "md5(name)": "md5(name)",
               "current_date()": "current_date()", "array(1,2)": "array(1, 2)"}


def test_an_expression_without_an_alias_has_the_name_spark_gives_it():
    table = {"schema": "shop", "name": "t", "row_count": 3, "columns": [
        {"column_name": name, "data_type": data_type, "null_count": 0, "distinct_count": 3}
        for name, data_type in (("id", "bigint"), ("name", "string"), ("s", "struct<a:bigint>"), ("amount", "decimal(23,1)"))]}
    inputs = {("shop", "t"): RelationStats.from_statistics("shop", "t", table)}
    rules = FunctionRules.load(min_accuracy="low")
    names = {expression: list(estimate_query(f"select {expression} from shop.t", inputs, rules).columns)[0] for expression in SPARK_NAMES}
    assert names == {expression: name.lower() for expression, name in SPARK_NAMES.items()}
    # and the model's column of that name carries the estimate, through a CTE's star too
    result = estimate_query("with c as (select upper(name), cast(id as string) from shop.t) select * from c", inputs, rules)
    assert list(result.columns) == ["upper(name)", "id"] and result.columns["upper(name)"].distinct_count == 3
    assert estimate_query("select posexplode(array(1, 2)) from shop.t", inputs, rules).columns.keys() == {"_col_0"}  # its own names


def test_a_comparison_with_null_is_null_on_every_row_and_has_no_bounds():
    result = estimate("select id = null as never, id + null as nothing from shop.orders")
    for name in ("never", "nothing"):
        stats = result.columns[name]
        assert (stats.null_fraction, stats.distinct_count, stats.min, stats.max) == (1, 0, None, None), name


def test_a_boolean_column_as_the_condition_and_a_condition_no_row_meets():
    flags = {"schema": "shop", "name": "flags", "row_count": 100, "columns": [
        {"column_name": "id", "data_type": "int", "null_count": 0, "distinct_count": 100, "min_value": "1", "max_value": "100"},
        {"column_name": "paid", "data_type": "boolean", "null_count": 10, "distinct_count": 2, "min_value": "false",
         "max_value": "true", "true_count": 60, "false_count": 30}],
        "top_values": {"paid": [{"value": "true", "frequency": 60}, {"value": "false", "frequency": 30}]}}
    inputs = {("shop", "flags"): RelationStats.from_statistics("shop", "flags", flags)}
    rules = FunctionRules.load(min_accuracy="low")
    for condition, expected in (("paid", 60), ("not paid", 30), ("not (paid)", 30), ("paid = true", 60)):
        assert estimate_query(f"select id from shop.flags where {condition}", inputs, rules).row_count == pytest.approx(expected), condition
    nothing = estimate_query("select id, paid from shop.flags where id > 1000", inputs, rules)
    assert nothing.row_count == 0
    assert all((stats.distinct_count, stats.min, stats.max) == (0, None, None) for stats in nothing.columns.values())


def test_not_keeps_the_rows_the_condition_is_false_for_not_those_it_is_null_for():
    # status: 100 of 1000 NULL; shipped 600, new 200, paid 90, returned 10
    for condition, expected in (("status not in ('shipped', 'new')", 100), ("not (status = 'paid')", 810),
                                ("not status like 'x%'", None), ("not (status is null)", 900), ("not (status is not null)", 100),
                                ("not (id > 900)", 900)):
        result = estimate(f"select id, status from shop.orders where {condition}")
        assert result.row_count == (pytest.approx(expected, rel=0.02) if expected else None), condition


def test_constant_conditions_disjunctions_and_null_in_a_list():
    # status: 100 of 1000 NULL; shipped 600, new 200, paid 90, returned 10; id 1..1000
    for condition, expected, accuracy in (
            ("1 = 1 and status = 'paid'", 90, "high"),             # templated SQL's WHERE 1 = 1
            ("true", 1000, "accurate"), ("false", 0, "accurate"), ("null", 0, "accurate"), ("not (1 > 2)", 1000, "accurate"),
            ("status = 'new' or status = 'paid'", 290, "high"),    # one column: the shares add up
            ("id <= 100 or status = 'paid'", 1000 * (1 - 0.9 * 0.91), "medium"),  # two: independent
            ("not (id <= 100 or id > 900)", 800, "medium"),
            ("status in ('new', null)", 200, "high"),              # NULL matches no row
            ("status not in ('new', null)", 0, "accurate"),        # and NOT IN with NULL none at all
            ("rand() < 0.5", None, None)):
        result = estimate(f"select id, status from shop.orders where {condition}")
        assert result.row_count == (pytest.approx(expected, rel=0.01) if expected is not None else None), condition
        assert result.row_accuracy == accuracy, condition
    either = estimate("select status from shop.orders where status = 'new' or status = 'paid'").columns["status"]
    assert (either.distinct_count, either.null_fraction, either.min, either.max) == (2, 0, "new", "paid")


def test_a_projected_in_list_with_null_is_never_false():
    # status: 100 of 1000 NULL, new 200: `status IN ('new', NULL)` is true on 200 rows, NULL on the rest
    result = estimate("select status in ('new', null) as listed, status not in ('new', null) as unlisted, "
                      "id in (null) as nothing, status in ('new', 'paid') as plain from shop.orders")
    found = {name: (s.null_fraction, s.distinct_count, s.min, s.max) for name, s in result.columns.items()}
    assert found["listed"] == (pytest.approx(0.8), 1, True, True)
    assert found["unlisted"] == (pytest.approx(0.8), 1, False, False)
    assert found["nothing"] == (1, 0, None, None)
    assert found["plain"][1:] == (2, False, True)  # without NULL: true and false


def test_group_by_all_tablesample_and_set_differences():
    assert estimate("select status, count(*) as n from shop.orders group by all").row_count == 5  # by status
    assert estimate("select status, customer, max(id) as m from shop.orders group by all").row_count == 500
    sampled = estimate("select id, status from shop.orders tablesample (10 percent)")
    assert (sampled.row_count, sampled.row_accuracy) == (pytest.approx(100), "medium")
    assert 95 < sampled.columns["id"].distinct_count <= 100 and sampled.columns["status"].distinct_count == pytest.approx(4)
    assert estimate("select id from shop.orders o tablesample (bucket 1 out of 4)").row_count == pytest.approx(250)
    assert estimate("select id from shop.orders tablesample (5 rows)").row_count == 5
    for operation in ("except", "intersect"):
        result = estimate(f"select id, status from shop.orders {operation} select id, status from shop.orders where id > 5")
        assert result.row_count is None and list(result.columns) == ["id", "status"], operation
        assert (result.columns["id"].distinct_count, result.columns["id"].accuracy) == (1000, "low"), operation


def test_inline_tables_values_and_range():
    labels = estimate("select * from values ('new', 'N'), ('paid', 'P'), ('old', null) as t(status, label)")
    assert labels.row_count == 3 and list(labels.columns) == ["status", "label"]
    label = labels.columns["label"]
    assert (label.distinct_count, label.null_fraction, label.min, label.max, label.accuracy) == (2, pytest.approx(1 / 3), "N", "P", "accurate")
    assert list(estimate("select * from values (1, 2)").columns) == ["col1", "col2"]  # as Spark names them
    assert estimate("select * from values (1, id) as t(a, b)").columns["b"].accuracy is None  # not a constant
    joined = estimate("select o.id, v.label from shop.orders o join values ('new', 'N'), ('paid', 'P') as v(status, label) on o.status = v.status")
    assert joined.row_count == pytest.approx(1000 * 2 / 4) and joined.columns["label"].distinct_count == 2
    spine = estimate("select * from range(10, 0, -2)")
    assert (spine.row_count, spine.columns["id"].distinct_count, spine.columns["id"].min, spine.columns["id"].max) == (5, 5, 2, 10)
    assert estimate("select id from range(2, 10, 3) where id > 4").row_count == pytest.approx(2)  # 2, 5, 8


def test_unknown_table_and_bad_sql():
    result = estimate("select x from shop.elsewhere")
    assert result.row_count is None and result.columns["x"].accuracy is None
    with pytest.raises(EstimateError, match="cannot parse"):
        estimate("select from where")


def test_accuracy_threshold_turns_rules_off():
    result = estimate("select concat(status, '!') as c, upper(status) as u from shop.orders", min_accuracy="high")
    assert result.columns["c"].accuracy is None and result.columns["u"].accuracy == "high"


def test_estimate_rows():
    found = {row["column_name"]: row for row in estimate_rows(estimate("select status, md5(status) as h from shop.orders"), "shop", "v")}
    assert found["h"] == {"table_schema": "shop", "table_name": "v", "column_name": "h", "data_type": "string", "row_count": 1000,
                          "null_count": 100, "distinct_count": 4, "min_value": None, "max_value": None, "avg_len": 32.0,
                          "max_len": 32, "accuracy": "accurate", "derived_from": "shop.orders.status"}


def test_models_are_estimated_upstream_first():
    models = [
        {"unique_id": "model.p.top", "schema": "shop", "name": "top", "depends_on": ["model.p.middle"],
         "sql": "select lower(s) as s from shop.middle"},
        {"unique_id": "model.p.middle", "schema": "shop", "name": "middle", "depends_on": [],
         "sql": "select upper(status) as s from shop.orders"},
        {"unique_id": "model.p.later", "schema": "shop", "name": "later", "depends_on": [], "sql": None},
    ]
    rows, messages = estimate_models(models, [ORDERS], FunctionRules.load())
    assert [row["table_name"] for row in rows] == ["middle", "top"]
    assert rows[1]["distinct_count"] == 4 and rows[1]["derived_from"] == "shop.orders.status"
    assert "shop.later: not compiled; run `dbt compile --select later` first" in messages


def test_a_model_s_columns_take_the_names_spark_gives_them_and_models_below_find_them():
    """sqlglot reads substring as substr and keeps no trace of the name it was called by; Spark
    names the column substring(status, 1, 2), and so does the model below that selects it."""
    models = [
        {"unique_id": "model.p.named", "schema": "shop", "name": "named", "depends_on": [],
         "sql": "select id, substring(status, 1, 2) from shop.orders", "columns": ["id", "substring(status, 1, 2)"]},
        {"unique_id": "model.p.below", "schema": "shop", "name": "below", "depends_on": ["model.p.named"],
         "sql": "select `substring(status, 1, 2)` as prefix from shop.named"},
        {"unique_id": "model.p.unresolved", "schema": "shop", "name": "unresolved", "depends_on": [],
         "sql": "select substring(status, 1, 2) from shop.orders", "columns": None},
    ]
    rows, _ = estimate_models(models, [ORDERS], FunctionRules.load())
    found = {(row["table_name"], row["column_name"]): row for row in rows}
    assert set(found) == {("named", "id"), ("named", "substring(status, 1, 2)"), ("below", "prefix"), ("unresolved", "substr(status, 1, 2)")}
    assert found[("below", "prefix")]["null_count"] == 100 and found[("below", "prefix")]["derived_from"] == "shop.orders.status"
