"""estimate_statistics: models' column statistics estimated from their inputs' statistics through
the function rules, then checked against the statistics of the built models (q-error per accuracy
level; the figures are written to test-output/estimation_q_errors.json)."""

from __future__ import annotations

import json
import statistics as stats
from pathlib import Path

from conftest import PROJECT, analyze, column_stats, rows, table_stats

MODELS = ["purchases_enriched", "purchases_filtered", "purchases_by_status", "purchases_enriched_summary"]


def q_error(estimate: float, actual: float) -> float:
    """max(est/true, true/est), both counted as at least 1 (a count of 0 and 1 are alike)."""
    estimate, actual = max(float(estimate), 1.0), max(float(actual), 1.0)
    return max(estimate / actual, actual / estimate)


def estimates(spark) -> dict[tuple[str, str], dict]:
    found = rows(spark, "select * from analytics_stats.column_statistics_estimated where table_schema = 'analytics'")
    return {(r["table_name"], r["column_name"]): r for r in found}


def test_estimates_against_the_built_models(dbt, spark):
    built = dbt("run", "--select", "purchases")
    assert built.success, built.error
    compiled = dbt("compile", "--select", *MODELS)
    assert compiled.success, compiled.error
    result = dbt("run-operation", "estimate_statistics", "--args", json.dumps({"select": MODELS, "accuracy": "low"}))
    assert result.success, result.error
    assert "analytics.purchases_enriched_summary: 4 column(s) estimated" in result.log
    estimated = estimates(spark)
    assert set(MODELS) <= {table for table, _ in estimated}  # (a module beside this one may estimate others)

    # what the rules promise exactly
    enriched = {column: row for (table, column), row in estimated.items() if table == "purchases_enriched"}
    assert enriched["customer_md5"]["max_len"] == 32 and enriched["customer_md5"]["accuracy"] == "accurate"
    assert enriched["quantity_missing"]["distinct_count"] == 2 and enriched["quantity_missing"]["null_count"] == 0
    assert enriched["purchase_year"]["min_value"] == enriched["purchase_year"]["max_value"] == "2024"
    assert enriched["amount_class"]["distinct_count"] == 3
    assert enriched["purchase_id"]["derived_from"] == "analytics.purchases.purchase_id"
    assert enriched["status_customer"]["accuracy"] == "medium"
    summary = {column: row for (table, column), row in estimated.items() if table == "purchases_enriched_summary"}
    assert summary["customer_md5"]["max_len"] == 32, "estimated from purchases_enriched's estimates"
    assert estimated[("purchases_by_status", "status")]["row_count"] == 4
    # columns without an alias, named as Spark names them (sqlglot would say coalesce, length)
    filtered = {column: row for (table, column), row in estimated.items() if table == "purchases_filtered"}
    assert {"nvl(quantity, 0)", "year(purchased_on)", "char_length(customer)"} <= set(filtered)
    assert filtered["nvl(quantity, 0)"]["null_count"] == 0 and filtered["year(purchased_on)"]["max_value"] == "2024"

    # the same models built and analyzed for real
    built = dbt("run", "--select", *MODELS)
    assert built.success, built.error
    by_level: dict[str, dict[str, list[float]]] = {}
    for model in MODELS:
        assert analyze(dbt, relation=f"analytics.{model}", columns="all").success
        actual_rows = table_stats(spark, f"analytics.{model}")[""]["row_count"]
        actual = column_stats(spark, f"analytics.{model}")
        assert {column for table, column in estimated if table == model} == set(actual), model
        for (table, column), estimate in estimated.items():
            if table != model or estimate["accuracy"] == "unknown":
                continue
            truth = actual[column]
            level = by_level.setdefault(estimate["accuracy"], {"distinct_count": [], "null_fraction": [], "row_count": []})
            if estimate["distinct_count"] is not None:
                level["distinct_count"].append(q_error(estimate["distinct_count"], truth["distinct_count"]))
            if estimate["null_count"] is not None:
                # null fraction compared through null counts at the true row count
                fraction = estimate["null_count"] / estimate["row_count"] if estimate["row_count"] else 0
                level["null_fraction"].append(q_error(fraction * actual_rows, truth["null_count"]))
            if estimate["row_count"] is not None:
                level["row_count"].append(q_error(estimate["row_count"], actual_rows))
    report = {level: {measure: {"columns": len(values), "median": round(stats.median(values), 3), "max": round(max(values), 3)}
                      for measure, values in measures.items() if values}
              for level, measures in sorted(by_level.items())}
    output = PROJECT / "test-output"
    output.mkdir(exist_ok=True)
    (output / "estimation_q_errors.json").write_text(json.dumps(report, indent=2))
    print(json.dumps(report, indent=2))
    for level in ("accurate", "high"):
        for measure in ("distinct_count", "null_fraction"):
            assert report[level][measure]["median"] <= 1.1, (level, measure, report[level])


# Selected without an alias. The estimator names them as Spark does where Spark cannot tell it
# (a model over a model not built yet: DESCRIBE QUERY fails); the rest it names otherwise.
UNALIASED = ["nvl(a, b)", "ifnull(a, b)", "coalesce(a, b)", "year(d)", "month(d)", "dayofmonth(d)", "hour(ts)", "to_date(ts)",
             "date_trunc('MONTH', ts)", "trunc(d, 'MM')", "substr(c, 1, 2)", "char_length(c)", "length(c)", "upper(c)", "trim(c)",
             "round(f)", "round(f, 1)", "floor(f)", "ceil(f)", "sqrt(f)", "pow(a, 2)", "power(a, 2)", "log10(f)", "sign(f)",
             "abs(a)", "concat(c, 'y')", "concat_ws('-', c, c)", "date_add(d, 1)", "datediff(d, d)", "greatest(a, b)",
             "nullif(a, b)", "if(a > 1, a, b)", "case when a > 1 then a else b end", "size(arr)", "cast(a as string)",
             "string(a)", "to_timestamp(c)", "a between 1 and 2", "a in (1, 2)", "not a = 1", "a is null", "a is not null",
             "isnull(a)", "c like 'x%'", "regexp_replace(c, 'x', 'y')", "split(c, ',')", "count(distinct a)", "a <> b", "-a",
             "a / b", "a div b", "mod(a, b)", "a % b", "lpad(c, 3, '0')", "instr(c, 'x')", "initcap(c)", "dayofweek(d)",
             "weekofyear(d)", "months_between(ts, ts)", "md5(c)", "sha2(c, 256)", "hash(a)", "max(a)", "count(*)",
             "substring(c, 1, 2)", "date_format(d, 'yyyy')", "struct(a, b)", "element_at(arr, 1)"]
NAMED_OTHERWISE = {"substring(c, 1, 2)", "date_format(d, 'yyyy')", "struct(a, b)", "element_at(arr, 1)"}


def test_the_estimator_names_unaliased_expressions_as_spark_does(spark):
    import sqlglot
    from dbt_analyze.spark_naming import spark_column_name

    spark.sql("create or replace temp view unaliased_input as select 1 as a, 2 as b, 'x' as c, date'2020-01-02' as d, "
              "timestamp'2020-01-01 00:00:00' as ts, 1.5d as f, array(1, 2) as arr")
    differ = {sql: (spark.sql(f"select {sql} from unaliased_input").columns[0], spark_column_name(sqlglot.parse_one(sql, read="spark"), sql))
              for sql in UNALIASED}
    differ = {sql: names for sql, names in differ.items() if names[0] != names[1]}
    assert set(differ) <= NAMED_OTHERWISE, {sql: names for sql, names in differ.items() if sql not in NAMED_OTHERWISE}


def test_unknown_where_nothing_can_be_estimated(dbt, spark):
    """A model over a table without statistics (a seed): every column unknown, nothing guessed;
    a literal is known exactly all the same."""
    assert dbt("seed", "--select", "orders_seed").success
    assert dbt("compile", "--select", "never_analyzed", "customers").success
    result = dbt("run-operation", "estimate_statistics", "--args", json.dumps({"select": ["never_analyzed", "customers"]}))
    assert result.success, result.error
    found = estimates(spark)
    customers = {column: row for (table, column), row in found.items() if table == "customers"}
    assert {column: row["accuracy"] for column, row in customers.items()} == {
        "customer": "unknown", "total_amount": "unknown", "ever_paid": "unknown",
        "order_count": "low"}  # count(*) is a bigint: its width is all that is known
    assert all(row["distinct_count"] is None and row["null_count"] is None and row["row_count"] is None for row in customers.values())
    assert customers["order_count"]["max_len"] == 8
    literal = found[("never_analyzed", "id")]
    assert (literal["accuracy"], literal["row_count"], literal["distinct_count"], literal["null_count"]) == ("accurate", 1, 1, 0)


def test_bad_requests_are_named(dbt):
    result = dbt("run-operation", "estimate_statistics", "--args", json.dumps({"select": ["no_such_model"]}))
    assert not result.success and "no SQL model named no_such_model" in result.error
    result = dbt("run-operation", "estimate_statistics", "--args", json.dumps({"select": "purchases", "accuracy": "roughly"}))
    assert not result.success and "'roughly' is not one of" in result.error
    result = dbt("run-operation", "estimate_statistics", "--args", json.dumps({"accuracy": "none"}))
    assert result.success and "propagation is off" in result.log
