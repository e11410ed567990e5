"""Column groups chosen from the SQL of the models that read a table (dbt_analyze.column_groups)."""

import dataclasses

from dbt_analyze.column_groups import choose_column_groups, resolved_sql
from dbt_analyze.column_stats import ColumnStats
from dbt_analyze.estimate import estimate_query
from dbt_analyze.function_rules import FunctionRules
from dbt_analyze.relations import RelationStats

COLUMNS = ["place_id", "zip", "city", "status", "flag", "amount"]


def chosen(*models: tuple[str, str], limit: int = 10) -> list[tuple[list[str], list[str]]]:
    return [(g["columns"], g["models"]) for g in choose_column_groups("analytics", "places", COLUMNS, models, limit)]


def test_group_by_distinct_window_and_join_keys():
    assert chosen(
        ("a", "select city, zip, count(*) from analytics.places group by city, zip"),
        ("b", "select distinct status, flag from analytics.places"),
        ("c", "select p.*, x.n from analytics.places p join analytics.other x on p.zip = x.zip and p.city = x.city"),
        ("e", "select sum(amount) over (partition by status, flag) from places"),
    ) == [(["zip", "city"], ["a", "c"]), (["status", "flag"], ["b", "e"])]  # the table's column order


def test_through_ctes_that_pass_columns_on():
    assert chosen(("d", "with t as (select * from analytics.places), u as (select zip as z, city from t) "
                        "select z, city from u group by z, city")) == [(["zip", "city"], ["d"])]


def test_what_is_not_a_group():
    assert chosen(
        ("one column", "select zip, count(*) from analytics.places group by zip"),
        ("self-join: two rows", "select a.zip, b.city from analytics.places a join analytics.places b"
                                " on a.place_id = b.place_id group by a.zip, b.city"),
        ("another table", "select zip, city from analytics.elsewhere group by zip, city"),
        ("an expression", "select upper(zip), city from analytics.places group by upper(zip), city"),
        ("not SQL", "select broken from"),
    ) == []


def test_most_used_first_at_most_the_limit():
    models = [("m1", "select zip, city from analytics.places group by zip, city"),
              ("m2", "select status, flag from analytics.places group by status, flag"),
              ("m3", "select status, flag, amount from analytics.places group by status, flag, amount"),
              ("m4", "select distinct status, flag from analytics.places")]
    assert chosen(*models, limit=2) == [(["status", "flag"], ["m2", "m4"]), (["status", "flag", "amount"], ["m3"])]


def test_raw_code_with_refs_and_sources_resolved():
    raw = "{{ config(materialized='table') }}\nselect zip, city from {{ ref('places') }} group by 1, 2 {# note #}"
    assert resolved_sql(raw, {"places": "analytics.places"}, {}) == "\nselect zip, city from analytics.places group by 1, 2 "


def test_estimates_take_a_group_of_the_keys():
    places = RelationStats(20000, {
        "zip": ColumnStats("string", 0.01, 2000, None, None, 4, 5),
        "city": ColumnStats("string", 0.0, 100, None, None, 6, 6),
        "amount": ColumnStats("int", 0.0, 1000, 0, 999, 4, 4)},
        groups={frozenset({"zip", "city"}): (2000, 206)})
    rules = FunctionRules.load()
    independent = estimate_query("select zip, city from analytics.places group by zip, city",
                                 {("analytics", "places"): dataclasses.replace(places, groups={})}, rules)
    grouped = estimate_query("select zip, city from analytics.places group by zip, city",
                             {("analytics", "places"): places}, rules)
    assert independent.row_count == 20000 and independent.columns["zip"].accuracy == "low"
    assert grouped.row_count == 2001 and grouped.columns["zip"].accuracy == "accurate"  # 2,000 and the NULL group
    distinct = estimate_query("select distinct city, zip from analytics.places", {("analytics", "places"): places}, rules)
    assert distinct.row_count == 2001
    wider = estimate_query("select zip, city, amount from analytics.places group by zip, city, amount",
                           {("analytics", "places"): places}, rules)
    assert wider.row_count == 20000 and wider.columns["zip"].accuracy == "medium"  # 2,001 x 1,000, capped by the rows



def test_equalities_on_a_group_keep_its_combinations_rows():
    places = RelationStats(20000, {
        "zip": ColumnStats("string", 0.0, 2000, "z0", "z999", 4, 5),
        "city": ColumnStats("string", 0.0, 100, "city0", "city99", 6, 6),
        "status": ColumnStats("string", 0.0, 5, "s0", "s4", 2, 2)},
        groups={frozenset({"zip", "city"}): (2000, 0)})
    rules = FunctionRules.load()
    sql = "select * from analytics.places where zip = 'z5' and city = 'city5'"
    grouped = estimate_query(sql, {("analytics", "places"): places}, rules)
    independent = estimate_query(sql, {("analytics", "places"): dataclasses.replace(places, groups={})}, rules)
    assert round(grouped.row_count) == 10  # a zip's rows: its city adds nothing
    assert independent.row_count <= 1  # 20,000 / (2,000 x 100), at least a row
    other = estimate_query("select * from analytics.places where zip = 'z5' and status = 's1'",
                           {("analytics", "places"): places}, rules)
    assert round(other.row_count) == 2  # no group: independent


def test_count_distinct_over_a_group_counts_at_most_its_combinations():
    places = RelationStats(20000, {
        "zip": ColumnStats("string", 0.0, 2000, None, None, 4, 5),
        "city": ColumnStats("string", 0.0, 100, None, None, 6, 6)},
        groups={frozenset({"zip", "city"}): (2000, 0)})
    found = estimate_query("select count(distinct zip, city) as n from analytics.places",
                           {("analytics", "places"): places}, FunctionRules.load())
    assert found.columns["n"].max == 2000
