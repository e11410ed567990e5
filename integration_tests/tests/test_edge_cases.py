"""Data edge cases, hostile table names and values, idempotence and schema changes."""

import os

import pytest
from conftest import analyze, column_stats, rows, table_stats
from test_oracle import same_value, spark_column_stat

EDGES = "analytics.edge_values"


def edge_values_sql(table: str) -> list[str]:
    """A table of each type's extreme values (test_thrift analyzes it where ANSI mode is on)."""
    return [f"""
        create table {table} (
          c_decimal_int decimal(38, 0), c_decimal_frac decimal(38, 38), c_float float, c_double double,
          c_tinyint tinyint, c_date date, c_timestamp timestamp, c_timestamp_ntz timestamp_ntz, c_string string)
        using parquet""", f"""
        insert into {table} values
          (cast('99999999999999999999999999999999999999' as decimal(38, 0)), cast('0.99999999999999999999999999999999999999' as decimal(38, 38)), float('3.4028235E38'),
           1.7976931348623157E308, 127, date'0001-01-01', timestamp'0001-01-01 00:00:00', timestamp_ntz'0001-01-01 00:00:00', 'a'),
          (cast('-99999999999999999999999999999999999999' as decimal(38, 0)), cast('-0.99999999999999999999999999999999999999' as decimal(38, 38)), float('1.4E-45'),
           4.9E-324, -128, date'9999-12-31', timestamp'9999-12-31 23:59:59.999999', timestamp_ntz'9999-12-31 23:59:59.999999', 'b'),
          (cast(0 as decimal(38, 0)), cast(0 as decimal(38, 38)), -0.0, -0.0, 0, date'1969-12-31', timestamp'1969-12-31 23:59:59.999999', timestamp_ntz'1970-01-01 00:00:00', 'c'),
          (null, null, float('-Infinity'), double('NaN'), null, null, null, null, null)"""]


@pytest.fixture(scope="module")
def edges(spark, dbt):
    spark.sql(f"drop table if exists {EDGES}")
    for statement in edge_values_sql(EDGES):
        spark.sql(statement)
    result = analyze(dbt, relation=EDGES, columns="all")
    assert result.success, result.error
    spark.sql(f"analyze table {EDGES} compute statistics for all columns")
    return column_stats(spark, EDGES)


@pytest.mark.parametrize("column", ["c_decimal_int", "c_decimal_frac", "c_float", "c_double", "c_tinyint", "c_date",
                                    "c_timestamp", "c_timestamp_ntz"])
def test_extreme_values_equal_sparks_analyze(spark, edges, column):
    ours, theirs = edges[column], spark_column_stat(spark, EDGES, column)
    assert ours["null_count"] == int(theirs["num_nulls"])
    assert ours["max_len"] == int(theirs["max_col_len"])
    assert same_value(ours["min_value"], theirs["min"]), (ours["min_value"], theirs["min"])
    assert same_value(ours["max_value"], theirs["max"]), (ours["max_value"], theirs["max"])
    assert ours["distinct_count"] == rows(spark, f"select count(distinct {column}) as n from {EDGES}")[0]["n"]


def test_full_precision_decimals_and_signed_zero(edges):
    assert edges["c_decimal_int"]["max_value"] == "9" * 38
    assert edges["c_decimal_frac"]["min_value"] == "-0." + "9" * 38
    assert edges["c_float"]["min_value"] == "-Infinity"
    assert edges["c_double"]["max_value"] == "NaN"
    assert edges["c_timestamp_ntz"]["min_value"] == "0001-01-01 00:00:00"


def test_quantiles_and_bins_of_extreme_values_are_values_of_the_type(spark, edges):
    """A quantile is kept as a double: 99...9 of decimal(38, 0) comes back as 1e38, past the type's
    limit, where the cast gives NULL (dbt-spark's session turns ANSI mode off; with it on, as on a
    Thrift server, the merge failed). It reads as the limit."""
    table = EDGES.split(".")[1]
    quantiles = rows(spark, f"select column_name, quantile, value from analytics_stats.column_quantiles where table_name = '{table}'")
    bounds = rows(spark, f"""select column_name, min(bin) as first, max(bin) as last, count(*) as bins,
                                    count(lower_bound) + count(upper_bound) as bounds
                             from analytics_stats.column_histograms where table_name = '{table}' group by column_name""")
    assert {q["column_name"] for q in quantiles} >= {"c_decimal_int", "c_decimal_frac", "c_tinyint", "c_date", "c_timestamp"}
    assert [q for q in quantiles if q["value"] is None] == []
    assert [b for b in bounds if b["bounds"] != 2 * b["bins"]] == []
    by_quantile = {(q["column_name"], q["quantile"]): q["value"] for q in quantiles}
    assert by_quantile[("c_decimal_int", 0.01)] == "-" + "9" * 38
    assert by_quantile[("c_decimal_int", 0.99)] == "9" * 38
    assert by_quantile[("c_decimal_frac", 0.99)] == "0." + "9" * 38


def test_empty_partition_counts_zero_rows(spark, dbt):
    spark.sql("drop table if exists analytics.with_empty")
    spark.sql("create table analytics.with_empty (v int, p int) using parquet partitioned by (p)")
    spark.sql("insert into analytics.with_empty values (1, 1), (null, 1)")
    spark.sql("alter table analytics.with_empty add partition (p = 2)")  # a partition without files
    result = analyze(dbt, relation="analytics.with_empty", columns="all")
    assert result.success, result.error
    tables = table_stats(spark, "analytics.with_empty")
    assert tables["p=2"]["row_count"] == 0 and tables["p=2"]["file_count"] == 0
    assert tables[""]["row_count"] == 2
    assert column_stats(spark, "analytics.with_empty", "p=2")["v"]["null_count"] == 0
    assert column_stats(spark, "analytics.with_empty")["v"]["null_count"] == 1


# Spark's catalog admits only letters, digits and _ in table names (spaces, quotes and unicode are
# refused by Spark itself): reserved words and leading digits are what can still go wrong.
HOSTILE_TABLES = ["from", "1st", "Select_"]
HOSTILE_VALUES = ["it's", "a;b", "x -- y", "line\nbreak", "tab\tand/slash", "%41=", "' OR '1'='1"]


@pytest.mark.parametrize("name", HOSTILE_TABLES)
def test_hostile_table_names_and_partition_values(spark, dbt, name):
    quoted = "analytics.`" + name.replace("`", "``") + "`"
    spark.sql(f"drop table if exists {quoted}")
    spark.sql(f"create table {quoted} (v int, p string) using parquet partitioned by (p)")
    spark.createDataFrame([(i, value) for i, value in enumerate(HOSTILE_VALUES)], "v int, p string").write.insertInto(quoted)
    result = analyze(dbt, relation="analytics." + name, columns="all")
    assert result.success, result.error
    # stored under the catalog's spelling of the name (Spark's catalog keeps names in lower case)
    stored = f"select * from analytics_stats.table_statistics where table_schema = 'analytics' and table_name = '{name.lower().replace(chr(39), chr(39) * 2)}'"
    tables = rows(spark, stored)
    assert len(tables) == len(HOSTILE_VALUES) + 1
    assert {t["partition_spec"]: t["row_count"] for t in tables}[""] == len(HOSTILE_VALUES)
    # Only the partition named by a hostile value is scanned again after it changes.
    spark.sql(f"insert into {quoted} partition (p = 'line\\nbreak') values (100)")
    again = analyze(dbt, relation="analytics." + name, columns="all")
    assert again.success, again.error
    assert f"1 of {len(HOSTILE_VALUES)} partition(s)" in again.log
    assert {t["partition_spec"]: t["row_count"] for t in rows(spark, stored)}[""] == len(HOSTILE_VALUES) + 1


def test_the_same_request_twice_gives_the_same_statistics(spark, dbt):
    spark.sql("drop table if exists analytics.twice")
    spark.sql("create table analytics.twice using parquet partitioned by (p) as select id, id % 7 as v, cast(id % 3 as int) as p from range(1000)")

    def current(*names):
        return [{k: v for k, v in r.items() if k not in ("run_id", "state_run_id", "collected_at")}
                for name in names for r in rows(spark, f"select * from analytics_stats.{name} where table_name = 'twice' order by all")]

    everything = ("table_statistics", "column_statistics", "column_quantiles", "column_top_values", "column_histograms")
    assert analyze(dbt, relation="analytics.twice", columns="all").success
    first = current(*everything)
    first_exact = current("table_statistics", "column_statistics")
    states = rows(spark, "select count(*) as n from analytics_stats.partition_states where table_name = 'twice'")[0]["n"]
    again = analyze(dbt, relation="analytics.twice", columns="all")
    assert again.success and "unchanged since its last analysis" in again.log
    assert current(*everything) == first
    assert rows(spark, "select count(*) as n from analytics_stats.partition_states where table_name = 'twice'")[0]["n"] == states

    # A forced rescan: exact statistics and NDV (HLL is deterministic) are equal; KLL compacts with
    # random coin flips once a column has more values than k, so quantiles may move within the
    # sketch's rank error (at the default k these 1,000 rows are kept exactly).
    assert analyze(dbt, relation="analytics.twice", columns="all", full=True).success
    assert current("table_statistics", "column_statistics") == first_exact
    before = {(q["partition_spec"], q["quantile"]): float(q["value"]) for q in first if q.get("column_name") == "id" and "quantile" in q}
    after = {(q["partition_spec"], q["quantile"]): float(q["value"]) for q in current("column_quantiles") if q["column_name"] == "id"}
    assert before.keys() == after.keys()
    assert all(abs(before[key] - after[key]) <= 20 for key in before)  # 1% of 1,000 rows on either side
    duplicates = rows(spark, """select partition_spec, column_name, count(*) as n from analytics_stats.column_statistics
                                where table_name = 'twice' group by all having n > 1""")
    assert duplicates == []  # no duplicate current rows


def test_dropped_and_retyped_columns_are_not_merged_with_new_states(spark, dbt):
    spark.sql("drop table if exists analytics.reshaped")
    spark.sql("create table analytics.reshaped (a int, b string, p int) using parquet partitioned by (p)")
    spark.sql("insert into analytics.reshaped values (1, 'x', 1), (2, 'y', 2)")
    assert analyze(dbt, relation="analytics.reshaped", columns="all").success

    # b dropped, a retyped: the table is rebuilt with the new schema.
    spark.sql("drop table analytics.reshaped")
    spark.sql("create table analytics.reshaped (a bigint, p int) using parquet partitioned by (p)")
    spark.sql("insert into analytics.reshaped values (10000000000, 1), (20000000000, 2)")
    # Only p=1 is analyzed again: p=2's state of a still has the old type.
    result = analyze(dbt, relation="analytics.reshaped", partition={"p": 1}, columns="all")
    assert result.success, result.error
    assert "column 'a' changed type from int to bigint" in result.log
    assert "column 'b' was dropped" in result.log
    run = rows(spark, "select notes from analytics_stats.analyze_runs where table_name = 'reshaped' order by started_at desc limit 1")[0]
    assert "changed type" in run["notes"] and "dropped" in run["notes"]
    assert set(column_stats(spark, "analytics.reshaped", "p=1")) == {"a"}
    assert column_stats(spark, "analytics.reshaped", "p=1")["a"]["data_type"] == "bigint"
    assert column_stats(spark, "analytics.reshaped", "p=2") == {}  # the old int state is not shown as current
    assert column_stats(spark, "analytics.reshaped") == {}  # no table row until every partition has a bigint state

    assert analyze(dbt, relation="analytics.reshaped", columns="all").success
    merged = column_stats(spark, "analytics.reshaped")["a"]
    assert (merged["min_value"], merged["max_value"], merged["data_type"]) == ("10000000000", "20000000000", "bigint")
    # said while it matters, not on every run after (b's old states stay in the history)
    again = analyze(dbt, relation="analytics.reshaped", columns="all")
    assert again.success and "unchanged since its last analysis" in again.log
    assert "was dropped" not in again.log and "changed type" not in again.log


def analyze_in_time_zone(spark, dbt, zone: str, **args):
    """A run whose session renders timestamps in `zone` (as a profile's spark.sql.session.timeZone does)."""
    os.environ["DBT_ANALYZE_TIME_ZONE"] = zone
    try:
        result = analyze(dbt, **args)
    finally:
        del os.environ["DBT_ANALYZE_TIME_ZONE"]
        spark.conf.set("spark.sql.session.timeZone", "UTC")
    assert result.success, result.error
    return result


def test_timestamp_extremes_merge_as_instants_whatever_the_session_time_zone(spark, dbt):
    """A state keeps a timestamp column's min and max as instants, not as text in the session's
    zone: states taken under one zone merge right with states taken under another (a changed
    profile, an imported document), and the hour that a zone's clocks go through twice keeps
    its order. The statistics keep them as instants too, and show them as UTC's clock time,
    whatever the zone of the session that wrote or reads them. Nor does a changed zone make unchanged partitions look changed, render a
    timestamp's top values in two zones, or move the quantiles of a timestamp without time zone
    (one in the hour its clocks skip included)."""
    table = "analytics.instants"
    spark.sql(f"drop table if exists {table}")
    spark.sql(f"create table {table} (t timestamp, n timestamp_ntz, p int) using parquet partitioned by (p)")
    # In Los Angeles on 2026-11-01, 08:30Z is the first 01:30 (PDT) and 09:10Z the second 01:10 (PST);
    # on 2026-03-08 its clocks skip from 02:00 to 03:00.
    spark.sql(f"""insert into {table} values (timestamp'2026-11-01 09:10:00Z', timestamp_ntz'2026-03-08 02:30:00', 1),
                  (timestamp'2026-11-01 08:00:00Z', timestamp_ntz'2026-03-08 01:00:00', 2),
                  (timestamp'2026-11-01 08:30:00Z', timestamp_ntz'2026-03-08 04:00:00', 2)""")

    def exact(zone: str, where: str = "true") -> tuple[str, str]:
        spark.conf.set("spark.sql.session.timeZone", zone)
        try:
            found = rows(spark, f"select cast(min(t) as string) as lo, cast(max(t) as string) as hi from {table} where {where}")[0]
        finally:
            spark.conf.set("spark.sql.session.timeZone", "UTC")
        return found["lo"], found["hi"]

    def ours(spec: str = "", zone: str = "UTC") -> tuple[str, str]:
        """As the statistics read in a session of `zone`."""
        spark.conf.set("spark.sql.session.timeZone", zone)
        try:
            found = column_stats(spark, table, spec)["t"]
        finally:
            spark.conf.set("spark.sql.session.timeZone", "UTC")
        return found["min_value"], found["max_value"]

    def quantiles(spec: str = "") -> set[str]:
        return {r["value"] for r in rows(spark, f"""select value from analytics_stats.column_quantiles
                                                    where table_name = 'instants' and column_name = 'n' and partition_spec = '{spec}'""")}

    analyze_in_time_zone(spark, dbt, "America/Los_Angeles", relation=table, columns="all")
    assert exact("America/Los_Angeles") == ("2026-11-01 01:00:00", "2026-11-01 01:10:00")
    assert ours(zone="America/Los_Angeles") == ours() == exact("UTC")
    assert quantiles("p=1") == {"2026-03-08 02:30:00"}

    unchanged = analyze_in_time_zone(spark, dbt, "UTC", relation=table, columns="all")
    assert "unchanged since its last analysis (2 partition(s) skipped)" in unchanged.log

    spark.sql(f"insert into {table} values (timestamp'2026-11-01 07:00:00Z', null, 3)")
    result = analyze_in_time_zone(spark, dbt, "UTC", relation=table, columns="all")
    assert "scanning analytics.instants: 1 of 3 partition(s)" in result.log  # merges the other two's states
    assert ours() == exact("UTC") == ("2026-11-01 07:00:00", "2026-11-01 09:10:00")
    assert ours("p=1") == exact("UTC", "p = 1") and ours("p=2") == exact("UTC", "p = 2")
    assert quantiles("p=1") == {"2026-03-08 02:30:00"}
    assert quantiles() == {"2026-03-08 01:00:00", "2026-03-08 02:30:00", "2026-03-08 04:00:00"}
    top = rows(spark, """select value, frequency from analytics_stats.column_top_values
                         where table_name = 'instants' and column_name = 't' and partition_spec = ''""")
    assert {r["value"]: r["frequency"] for r in top} == {f"2026-11-01 {time}": 1 for time in ("07:00:00", "08:00:00", "08:30:00", "09:10:00")}


def test_the_statistics_write_keeps_its_settings_to_itself_and_reads_fresh_files(spark, dbt):
    """On a session connection the write runs in a Spark session of its own, without adaptive
    execution: the main session's settings stay as they were, the write scans the files the main
    session wrote last, and the main session then reads the rows the write added."""
    spark.sql("drop table if exists analytics.own_settings")
    spark.sql("create table analytics.own_settings using parquet as select id from range(10)")
    adaptive = spark.conf.get("spark.sql.adaptive.enabled")
    assert analyze(dbt, relation="analytics.own_settings", columns="all").success
    spark.sql("insert overwrite table analytics.own_settings select id from range(25)")
    again = analyze(dbt, relation="analytics.own_settings", columns="all")
    assert again.success, again.error
    assert "analyzed: 25 rows" in again.log  # the run's own rows, read back by the main session
    assert table_stats(spark, "analytics.own_settings")[""]["row_count"] == 25
    assert column_stats(spark, "analytics.own_settings")["id"]["max_value"] == "24"
    assert spark.conf.get("spark.sql.adaptive.enabled") == adaptive
