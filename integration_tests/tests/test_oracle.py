"""Exact statistics equal what Spark's own ANALYZE TABLE ... FOR ALL COLUMNS stores."""

import math
import re
from datetime import datetime
from decimal import Decimal, InvalidOperation

import pytest
from conftest import analyze, column_stats, rows, table_stats
from dbt_analyze.session_seeds import sql_literal

ALL_TYPES = "analytics.all_types"


@pytest.fixture(scope="module")
def all_types(spark, dbt):
    spark.sql("create database if not exists analytics")
    spark.sql(f"drop table if exists {ALL_TYPES}")
    spark.sql(f"""
        create table {ALL_TYPES} (
          c_tinyint tinyint, c_smallint smallint, c_int int, c_bigint bigint, c_float float, c_double double,
          c_decimal decimal(38, 10), c_boolean boolean, c_date date, c_timestamp timestamp, c_string string,
          c_binary binary, c_array array<int>, c_all_null int)
        using parquet""")
    spark.sql(f"""
        insert into {ALL_TYPES} values
          (1, 100, 1000, 10000000000, 1.5, 2.25, 12345678901234567890.0123456789, true, date'1969-12-31',
           timestamp'2024-01-01 10:00:00', 'ascii', X'0102', array(1, 2), null),
          (-128, -32768, -2147483648, -9223372036854775808, cast('NaN' as float), cast('-Infinity' as double),
           -0.0000000001, false, date'0001-01-01', timestamp'1900-01-01 00:00:00.123456', 'ünïcödé ✓', X'', array(), null),
          (127, 32767, 2147483647, 9223372036854775807, -0.0, cast('Infinity' as double), 0, true,
           date'9999-12-31', timestamp'2262-04-11 23:47:16', '', X'FFFFFFFF', null, null),
          (null, null, null, null, null, cast('NaN' as double), null, null, null, null, null, null, array(3), null),
          (5, 5, 5, 5, 3.25, 0.5, 5.5, false, date'2024-02-29', timestamp'2024-02-29 12:00:00', 'ascii', X'01', array(1), null)""")
    result = analyze(dbt, relation=ALL_TYPES, columns="all")
    assert result.success, result.error
    # Spark's ANALYZE refuses complex types: its oracle covers the other columns.
    supported = [f.name for f in spark.table(ALL_TYPES).schema.fields if f.name != "c_array"]
    spark.sql(f"analyze table {ALL_TYPES} compute statistics for columns {', '.join(supported)}")
    return column_stats(spark, ALL_TYPES)


def same_value(ours: str, theirs: str) -> bool:
    """Ours is cast(x as string); DESCRIBE pads timestamps to microseconds and adds the session
    zone's offset (" +0000" in UTC, " -0800" in Los Angeles): both are times in that zone. It may
    write a decimal in scientific notation (-1E-10 with ANSI mode on, as a Thrift server runs)."""
    if ours == theirs:
        return True
    try:
        return datetime.fromisoformat(ours) == datetime.fromisoformat(re.sub(r" [+-]\d{4}$", "", theirs))
    except ValueError:
        pass
    try:
        return Decimal(ours) == Decimal(theirs) and "E" in theirs.upper()
    except InvalidOperation:
        return False


def spark_column_stat(spark, table, column):
    described = {r["info_name"]: r["info_value"] for r in rows(spark, f"describe extended {table} {column}")}
    return {k: (None if v == "NULL" else v) for k, v in described.items()}


@pytest.mark.parametrize("column", [
    "c_tinyint", "c_smallint", "c_int", "c_bigint", "c_float", "c_double", "c_decimal", "c_boolean",
    "c_date", "c_timestamp", "c_string", "c_binary", "c_all_null"])
def test_exact_statistics_equal_sparks_analyze(spark, all_types, column):
    ours = all_types[column]
    theirs = spark_column_stat(spark, ALL_TYPES, column)
    assert ours["null_count"] == int(theirs["num_nulls"])
    assert ours["max_len"] == int(theirs["max_col_len"])
    # Spark rounds the average length up when it stores it; we keep the exact average.
    assert math.ceil(ours["avg_len"]) == int(theirs["avg_col_len"]) or ours["null_count"] == 5
    if theirs["min"] is not None:
        assert same_value(ours["min_value"], theirs["min"])
        assert same_value(ours["max_value"], theirs["max"])
    exact_ndv = rows(spark, f"select count(distinct {column}) as n from {ALL_TYPES}")[0]["n"]
    assert ours["distinct_count"] == exact_ndv


def test_string_min_max_and_boolean_counts(spark, all_types):
    # Spark's ANALYZE stores no min/max for strings; we do, and true/false counts.
    assert all_types["c_string"]["min_value"] == ""
    assert all_types["c_string"]["max_value"] == "ünïcödé ✓"
    assert all_types["c_string"]["avg_len"] == pytest.approx((5 + 9 + 0 + 5) / 4)
    assert all_types["c_boolean"]["true_count"] == 2
    assert all_types["c_boolean"]["false_count"] == 2
    # A boolean's top values are those counts, exact, and its state carries no top-k sketch.
    top = rows(spark, "select rank, value, frequency from analytics_stats.column_top_values"
                      " where table_name = 'all_types' and column_name = 'c_boolean' order by rank")
    assert [(r["rank"], r["value"], r["frequency"]) for r in top] == [(1, "false", 2), (2, "true", 2)]
    sketches = rows(spark, "select top_values_sketch is null as none, ndv_sketch is null as no_ndv from analytics_stats.partition_states"
                           " where table_name = 'all_types' and column_name = 'c_boolean'")
    assert sketches and all(r["none"] and not r["no_ndv"] for r in sketches)


def test_nan_infinity_and_complex_types(spark, all_types):
    assert all_types["c_double"]["max_value"] == "NaN"
    assert all_types["c_double"]["min_value"] == "-Infinity"
    array = all_types["c_array"]
    assert array["null_count"] == 1
    assert array["max_len"] == 2 and array["avg_len"] == pytest.approx(1.0)
    assert array["distinct_count"] is None and array["min_value"] is None


def test_mean_and_stddev(spark, all_types):
    exact = rows(spark, f"select avg(c_int) as m, stddev(c_int) as s from {ALL_TYPES}")[0]
    assert all_types["c_int"]["mean"] == pytest.approx(exact["m"])
    assert all_types["c_int"]["stddev"] == pytest.approx(exact["s"])


def test_table_row_count_and_size_equal_sparks(spark, all_types):
    ours = table_stats(spark, ALL_TYPES)[""]
    described = {r["col_name"]: r["data_type"] for r in rows(spark, f"describe table extended {ALL_TYPES}")}
    size, count = described["Statistics"].replace(" bytes", "").replace(" rows", "").split(", ")
    assert ours["row_count"] == int(count) == 5
    assert ours["size_bytes"] == int(size)


def test_empty_table(spark, dbt):
    spark.sql("create table if not exists analytics.empty_table (a int, b string) using parquet")
    result = analyze(dbt, relation="analytics.empty_table", columns="all")
    assert result.success, result.error
    assert table_stats(spark, "analytics.empty_table")[""]["row_count"] == 0
    stats = column_stats(spark, "analytics.empty_table")
    assert stats["a"]["null_count"] == 0 and stats["a"]["distinct_count"] == 0 and stats["a"]["min_value"] is None


def test_ndv_within_two_percent_on_a_million_distinct_values(spark, dbt):
    spark.sql("drop table if exists analytics.million")
    spark.sql("create table analytics.million using parquet as select id, cast(id * 7 as string) as s, id * 0.5 as d from range(1000000)")
    result = analyze(dbt, relation="analytics.million", columns="all", sketches="basic")
    assert result.success, result.error
    stats = column_stats(spark, "analytics.million")
    for column in ("id", "s", "d"):
        assert abs(stats[column]["distinct_count"] - 1_000_000) / 1_000_000 <= 0.02, (column, stats[column]["distinct_count"])


def test_spark4_string_types_are_counted_under_their_collation(spark, dbt):
    """Collated strings (Spark 4): values equal under the collation are one distinct value and one
    top value, in each partition and in the merge; char and varchar lengths are Spark's; variant
    columns get null counts, where Spark's ANALYZE refuses them."""
    table = "analytics.spark4_strings"
    spark.sql(f"drop table if exists {table}")
    spark.sql(f"""create table {table} (lcase string collate UTF8_LCASE, ci_ai string collate UNICODE_CI_AI,
                    fixed char(3), bounded varchar(5), v variant, span interval day to second, p int)
                  using parquet partitioned by (p)""")
    spark.sql(f"""insert into {table} values
        ('a', 'É', 'ab', 'x', parse_json('1'), interval '1 00:00:00' day to second, 1), ('A', 'e', 'ab ', 'xyz', null, null, 1),
        ('b', 'é', null, 'xy', parse_json('[1]'), interval '0 02:00:00' day to second, 1), ('', 'x', 'c', '', null, interval '1 00:00:00' day to second, 1),
        ('B', 'E', 'c', 'Z', null, null, 2), ('b', 'ë', 'de', 'Z', parse_json('"s"'), null, 2), ('a', null, 'c', 'zz', null, null, 2)""")
    result = analyze(dbt, relation=table, columns="all")
    assert result.success, result.error
    spark.sql(f"analyze table {table} compute statistics for columns lcase, ci_ai, fixed, bounded")

    types = {f.name: f.dataType.simpleString() for f in spark.table(table).schema.fields}
    for spec, where in (("", "true"), ("p=1", "p = 1"), ("p=2", "p = 2")):
        stats = column_stats(spark, table, spec)
        for column in ("lcase", "ci_ai", "fixed", "bounded"):
            exact = rows(spark, f"""select count(distinct {column}) as ndv, cast(min({column}) as string) as lo,
                                           cast(max({column}) as string) as hi from {table} where {where}""")[0]
            assert stats[column]["distinct_count"] == exact["ndv"], (spec, column)
            # equal under the collation ('É' and 'E' are the same minimum under UNICODE_CI_AI)
            for ours, theirs in ((stats[column]["min_value"], exact["lo"]), (stats[column]["max_value"], exact["hi"])):
                same = f"cast({sql_literal(ours)} as {types[column]}) <=> cast({sql_literal(theirs)} as {types[column]})"
                assert rows(spark, f"select {same} as same")[0]["same"], (spec, column, ours, theirs)
            ours_top = {r["value"]: r["frequency"] for r in rows(spark, f"""select value, frequency from analytics_stats.column_top_values
                         where table_name = 'spark4_strings' and partition_spec = '{spec}' and column_name = '{column}'""")}
            exact_top = rows(spark, f"select count(*) as n from {table} where {where} and {column} is not null group by {column} order by n desc")
            assert sorted(ours_top.values(), reverse=True) == [r["n"] for r in exact_top], (spec, column, ours_top)

    whole = column_stats(spark, table)
    for column in ("lcase", "ci_ai", "fixed", "bounded"):
        theirs = spark_column_stat(spark, table, column)
        assert whole[column]["distinct_count"] == int(theirs["distinct_count"]), column
        assert whole[column]["null_count"] == int(theirs["num_nulls"])
        assert whole[column]["max_len"] == int(theirs["max_col_len"])
        assert math.ceil(whole[column]["avg_len"]) == int(theirs["avg_col_len"])
    assert (whole["v"]["null_count"], whole["span"]["null_count"]) == (4, 4)


def test_ansi_interval_columns_get_min_max_distinct_and_top_values(spark, dbt):
    """Spark's ANALYZE refuses ANSI interval columns; they are ordered and comparable, so they get
    what other ordered types get but quantiles (and their type widths as lengths): checked per
    partition and merged against exact SQL."""
    table = "analytics.spans"
    spark.sql(f"drop table if exists {table}")
    spark.sql(f"create table {table} (wait interval day to second, tenure interval year to month, p int) using parquet partitioned by (p)")
    spark.sql(f"""insert into {table} values
        (interval '1 00:00:00' day to second, interval '1-2' year to month, 1), (interval '-0 02:00:00.5' day to second, null, 1),
        (interval '1 00:00:00' day to second, interval '-3-0' year to month, 1), (null, interval '0-11' year to month, 2),
        (interval '30 00:00:01' day to second, interval '1-2' year to month, 2)""")
    result = analyze(dbt, relation=table, columns="all")
    assert result.success, result.error
    for spec, where in (("", "true"), ("p=1", "p = 1"), ("p=2", "p = 2")):
        stats = column_stats(spark, table, spec)
        for column in ("wait", "tenure"):
            exact = rows(spark, f"""select count(*) - count({column}) as nulls, count(distinct {column}) as ndv,
                                           cast(min({column}) as string) as lo, cast(max({column}) as string) as hi from {table} where {where}""")[0]
            ours = stats[column]
            assert (ours["null_count"], ours["distinct_count"], ours["min_value"], ours["max_value"]) == \
                   (exact["nulls"], exact["ndv"], exact["lo"], exact["hi"]), (spec, column)
    whole = column_stats(spark, table)
    assert (whole["wait"]["avg_len"], whole["wait"]["max_len"], whole["tenure"]["avg_len"], whole["tenure"]["max_len"]) == (8, 8, 4, 4)  # type widths
    top = rows(spark, f"""select value, frequency from analytics_stats.column_top_values
                          where table_name = 'spans' and partition_spec = '' and column_name = 'tenure' order by rank""")[0]
    assert (top["value"], top["frequency"]) == ("INTERVAL '1-2' YEAR TO MONTH", 2)
