"""The request: both grammar forms, the rewrite they produce, and every bad input refused clearly."""

import json
import re

import pytest
from conftest import PROJECT, analyze, column_stats, parse_statements, rows, statements_sent, table_stats

SALES = "analytics.sales"
TYPED_PARTS = "analytics.typed_parts"  # partitioned by a date, an int and a boolean


@pytest.fixture(scope="module")
def sales(spark, dbt):
    spark.sql("create database if not exists analytics")
    spark.sql(f"drop table if exists {SALES}")
    spark.sql(f"create table {SALES} (id int, amount double, region string, day string) using parquet partitioned by (region, day)")
    spark.sql(f"""insert into {SALES} values (1, 1.0, 'eu', '2024-01-01'), (2, 2.0, 'eu', '2024-01-02'),
                  (3, 3.0, 'us', '2024-01-01'), (4, null, 'us', '2024-01-02'), (5, 5.0, 'us', '2024-01-02')""")
    spark.sql("drop view if exists analytics.sales_view")
    spark.sql(f"create view analytics.sales_view as select * from {SALES}")
    spark.sql("drop table if exists analytics.flat")
    spark.sql("create table analytics.flat using parquet as select 1 as a")
    spark.sql(f"drop table if exists {TYPED_PARTS}")
    spark.sql(f"create table {TYPED_PARTS} (v int, d date, n int, flag boolean) using parquet partitioned by (d, n, flag)")
    spark.sql(f"insert into {TYPED_PARTS} values (1, date'2024-01-02', 1, true), (2, date'2024-01-02', 2, false), (3, null, null, null)")
    result = analyze(dbt, relation=SALES, columns="all")
    assert result.success, result.error
    return result


def dry_run_sql(dbt, **args) -> str:
    result = analyze(dbt, dry_run=True, full=True, **args)
    assert result.success, result.error
    header = next(i for i, m in enumerate(result.messages) if m.startswith("-- dbt_analyze dry run"))
    return result.messages[header + 1]


def test_statement_forms_rewrite_to_one_scan(dbt, sales):
    whole = dry_run_sql(dbt, statement=f"analyze table {SALES} compute statistics for all columns")
    assert whole.count("from `analytics`.`sales`") == 1  # one scan
    assert "group by `region`, `day`" in whole
    assert "where concat(" not in whole  # every partition: no pruning predicate
    for column in ("id", "amount"):
        assert f"count(`{column}`)" in whole and "hll_sketch_agg(" in whole
    assert "hll_union_agg(" in whole and "kll_merge_agg_double(" in whole  # partitions' states merged
    # an unpartitioned table's one state is its statistics: no merge aggregate, no states read back
    flat = dry_run_sql(dbt, statement="analyze table analytics.flat compute statistics for all columns")
    assert "hll_sketch_agg(" in flat
    assert not any(merge in flat for merge in ("hll_union_agg(", "kll_merge_agg_double(", "approx_top_k_combine(",
                                               "group by", " over (", "stored as ("))

    partial = dry_run_sql(dbt, statement=f"ANALYZE TABLE {SALES} PARTITION (region='us') COMPUTE STATISTICS FOR COLUMNS amount")
    assert "where concat('region=', " in partial
    assert "in ('region=us/day=2024-01-01', 'region=us/day=2024-01-02')" in partial
    assert "'region=eu" not in partial[partial.index("states as ("):].split("left join")[0]  # eu partitions are not scanned

    columns = dry_run_sql(dbt, statement="Analyze Table `analytics`.`sales` Compute Statistics For Columns `amount`;")
    assert "count(`amount`)" in columns

    noscan = analyze(dbt, dry_run=True, statement=f"ANALYZE TABLE {SALES} COMPUTE STATISTICS NOSCAN")
    assert noscan.success and "nothing to scan" in noscan.log

    table_only = dry_run_sql(dbt, statement=f"ANALYZE TABLE {SALES} PARTITION (region='eu', day) COMPUTE STATISTICS")
    assert "in ('region=eu/day=2024-01-01', 'region=eu/day=2024-01-02')" in table_only


def test_partition_values_are_values_of_the_partition_columns_type(dbt, sales):
    """As Spark matches them: n=01 is n=1, d='2024-1-2' is d=2024-01-02, and NULL (in a statement)
    or '' (in a request) is the partition of NULL values."""
    first = "'d=2024-01-02/n=1/flag=true'"
    assert f"in ({first})" in dry_run_sql(dbt, relation=TYPED_PARTS, partition={"d": "2024-1-2", "n": "01", "flag": True})
    assert f"in ({first})" in dry_run_sql(dbt, statement=f"ANALYZE TABLE {TYPED_PARTS} PARTITION (d='2024-1-2', n=01, flag=TRUE) COMPUTE STATISTICS")
    nulls = "'d=__HIVE_DEFAULT_PARTITION__/n=__HIVE_DEFAULT_PARTITION__/flag=__HIVE_DEFAULT_PARTITION__'"
    assert f"in ({nulls})" in dry_run_sql(dbt, statement=f"ANALYZE TABLE {TYPED_PARTS} PARTITION (d=NULL) COMPUTE STATISTICS")
    assert f"in ({nulls})" in dry_run_sql(dbt, relation=TYPED_PARTS, partition={"n": ""})
    assert parse_statements(dbt, ["ANALYZE TABLE t PARTITION (d = null, e = 'null') COMPUTE STATISTICS"])[0]["partition"] == {"d": "", "e": "null"}


def test_partition_values_may_be_typed_literals_and_yaml_dates(spark, dbt, sales):
    """Spark's literals in a statement (DATE '...', 5L, adjacent strings), and a date written the
    YAML way in --args, which YAML reads as a date (it failed the run: a date is not JSON)."""
    first = "'d=2024-01-02/n=1/flag=true'"
    typed = f"ANALYZE TABLE {TYPED_PARTS} PARTITION (d = DATE '2024-1-2', n = 1L, flag = true) COMPUTE STATISTICS"
    assert f"in ({first})" in dry_run_sql(dbt, statement=typed)
    parsed = parse_statements(dbt, ["ANALYZE TABLE t PARTITION (a = TIMESTAMP_NTZ '2024-01-02 03:04', b = 1.5BD, c = 'x' \"y\" 'z', e = -2Y) COMPUTE STATISTICS",
                                    "ANALYZE TABLE t PARTITION (d = DATE 5) COMPUTE STATISTICS",
                                    "ANALYZE TABLE t PARTITION (d = 5 '6') COMPUTE STATISTICS"])
    assert parsed[0]["partition"] == {"a": "2024-01-02 03:04", "b": "1.5", "c": "xyz", "e": "-2"}
    assert "expected a string literal at position 37, found '5'" in parsed[1]["error"]
    assert "expected ',' or ')' at position 34" in parsed[2]["error"]

    yaml_args = "{relation: " + TYPED_PARTS + ", partition: {d: 2024-01-02, n: 1}, columns: [v], full: true}"
    dry = dbt("run-operation", "analyze_table", "--args", yaml_args[:-1] + ", dry_run: true}")
    assert dry.success, dry.error
    assert f"in ({first})" in dry.log
    result = dbt("run-operation", "analyze_table", "--args", yaml_args)
    assert result.success, result.error
    run = rows(spark, "select request, status, targets_scanned from analytics_stats.analyze_runs where request like '%typed_parts%' order by started_at desc limit 1")[0]
    assert (run["status"], run["targets_scanned"]) == ("succeeded", 1)
    assert '"d": "2024-01-02"' in run["request"]


def test_comments_in_a_statement_are_skipped_as_spark_skips_them(dbt):
    with_comments, plain = parse_statements(dbt, [
        "ANALYZE TABLE /* nightly */ analytics.sales -- the fact table\n PARTITION (region = 'us--1') COMPUTE STATISTICS FOR COLUMNS amount -- why",
        "ANALYZE TABLE analytics.sales PARTITION (region = 'us--1') COMPUTE STATISTICS FOR COLUMNS amount"])
    assert with_comments == plain and plain["partition"] == {"region": "us--1"}
    unclosed = parse_statements(dbt, ["ANALYZE TABLE analytics.sales /* never closed COMPUTE STATISTICS"])[0]
    assert unclosed["error"].startswith("malformed ANALYZE statement") and "position 31" in unclosed["error"]


def test_relation_form_equals_statement_form(dbt, sales):
    by_relation = dry_run_sql(dbt, relation=SALES, partition={"region": "us", "day": None}, columns=["amount"])
    by_statement = dry_run_sql(dbt, statement=f"ANALYZE TABLE {SALES} PARTITION (region='us', day) COMPUTE STATISTICS FOR COLUMNS amount")
    # the same SQL but for the run id
    run_id = re.compile(r"\d{8}T\d+[-_][0-9a-f]{8}")
    assert run_id.sub("RUN", by_relation) == run_id.sub("RUN", by_statement)
    assert "in ('region=us/day=2024-01-01', 'region=us/day=2024-01-02')" in by_relation
    # Spark 4's three-part name, in its session catalog, is the same table
    by_catalog = dry_run_sql(dbt, relation=f"Spark_Catalog.{SALES}", partition={"region": "us", "day": None}, columns=["amount"])
    assert run_id.sub("RUN", by_catalog) == run_id.sub("RUN", by_relation)


def test_the_run_operation_ends_by_printing_the_statistics_like_describe_extended(spark, dbt, sales):
    """The run that scanned prints the snapshot it wrote; a run that found nothing changed, the
    one its states read saw (both read by run id, with the run's own numbers as it knows them).
    Both the same numbers, which analyze_runs and the current views hold too."""
    unchanged = analyze(dbt, relation=SALES, columns="all")
    assert unchanged.success, unchanged.error
    for result, run_line in ((sales, "last run: succeeded; partitions scanned 4, skipped 0; rows scanned 5"),
                             (unchanged, "last run: succeeded; partitions scanned 0, skipped 4; rows scanned 0")):
        printed = next(m for m in result.messages if m.startswith("\nStatistics of analytics.sales")).splitlines()
        assert printed[2].startswith(run_line), printed[2]
        stored = [f"last run: {r['status']}; partitions scanned {r['targets_scanned']}, skipped {r['partitions_skipped']}; "
                  f"rows scanned {r['rows_scanned'] or 0}, bytes scanned {r['bytes_scanned'] or 0}, sketches {r['sketch_bytes'] or 0} bytes; "
                  + ", ".join(f"{step} {r[step + '_ms']} ms" for step in ("plan", "scan") if r[step + "_ms"] is not None)
                  for r in rows(spark, "select * from analytics_stats.analyze_runs where table_name = 'sales'")]
        assert printed[2] in stored, (printed[2], stored)
        # one read prints it: the run's numbers are not read back, nor the current views
        assert len(statements_sent(result, "order by column_name, partition_spec")) == 1
        assert not statements_sent(result, "order by started_at desc limit 1") and not statements_sent(result, "from `analytics_stats`.`table_statistics`")
        assert printed[3].startswith("table: rows 5, size ") and ", partitions 4 of 4 analyzed, collected " in printed[3]
        assert [line.split(":")[0] for line in printed[4:8]] == [
            f"  partition region={region}/day=2024-01-0{day}" for region in ("eu", "us") for day in (1, 2)]
        assert printed[6].startswith("  partition region=us/day=2024-01-01: rows 1, ")
        assert printed[8].split() == ["column", "type", "nulls", "distinct", "min", "max", "avg_len", "max_len", "true", "false", "mean", "stddev"]
        # amount: 1, 2, 3, null, 5 (mean 2.75, sample stddev sqrt(8.75 / 3))
        assert printed[9].split() == ["amount", "double", "1", "4", "1.0", "5.0", "8.0", "8", "2.75", "1.7078"]
        assert printed[10].split()[:6] == ["id", "int", "0", "5", "1", "5"]


def test_names_in_any_case_are_one_tables_statistics(spark, dbt, sales):
    """Spark's catalog is case-insensitive: Analytics.SALES is analytics.sales, so it finds the
    states analytics.sales left (nothing changed: nothing scanned) and writes no second table."""
    result = analyze(dbt, statement="ANALYZE TABLE Analytics.SALES COMPUTE STATISTICS FOR ALL COLUMNS")
    assert result.success, result.error
    assert "4 partition(s) skipped" in result.log
    names = rows(spark, "select distinct table_schema, table_name from analytics_stats.table_statistics where lower(table_name) = 'sales'")
    assert names == [{"table_schema": "analytics", "table_name": "sales"}]


def test_partition_spec_with_column_statistics_is_honoured(spark, dbt, sales):
    stats = column_stats(spark, SALES, "region=us/day=2024-01-02")
    assert stats["amount"]["null_count"] == 1 and stats["amount"]["max_value"] == "5.0"
    assert table_stats(spark, SALES)["region=eu/day=2024-01-01"]["row_count"] == 1


def test_analyze_tables_in_a_schema_analyzes_each_table_and_skips_views(spark, dbt):
    """ANALYZE TABLES IN db (Spark's statement; here FOR ALL COLUMNS too) runs one analysis per
    table, logs which table of how many it is on, and skips views; NOSCAN and the schema argument
    are the same request."""
    spark.sql("create database if not exists shelf")
    for name in ("books", "pens", "shelf_view", "Tags"):
        spark.sql(f"drop view if exists shelf.{name}") if name == "shelf_view" else spark.sql(f"drop table if exists shelf.{name}")
    spark.sql("create table shelf.books (title string, pages int, genre string) using parquet partitioned by (genre)")
    spark.sql("insert into shelf.books values ('a', 100, 'novel'), ('b', null, 'novel'), ('c', 300, 'poetry')")
    spark.sql("create table shelf.pens using parquet as select id, id % 2 = 0 as refill from range(5)")
    spark.sql("create table shelf.Tags using parquet as select 'x' as tag")
    spark.sql("create view shelf.shelf_view as select * from shelf.pens")

    listed = parse_statements(dbt, ["analyze tables from shelf compute statistics", "ANALYZE TABLES COMPUTE STATISTICS NOSCAN;",
                                    "analyze tables in spark_catalog.`shelf` compute statistics for all columns"])
    assert listed == [{"tables_in": "shelf", "columns": None, "noscan": False}, {"tables_in": None, "columns": None, "noscan": True},
                      {"tables_in": "shelf", "columns": "all", "noscan": False}]

    result = analyze(dbt, statement="ANALYZE TABLES IN shelf COMPUTE STATISTICS FOR ALL COLUMNS")
    assert result.success, result.error
    assert "ANALYZE TABLES IN shelf: 3 table(s), 1 view(s) skipped (no data of their own): shelf_view" in result.log
    for i, name in enumerate(["books", "pens", "tags"], start=1):
        assert f"ANALYZE TABLES IN shelf: table {i} of 3: shelf.{name}" in result.log
    assert "  shelf.books: succeeded, 2 partition(s) scanned, 0 skipped, 3 rows" in result.log
    assert table_stats(spark, "shelf.books")[""]["row_count"] == 3 and table_stats(spark, "shelf.pens")[""]["row_count"] == 5
    assert column_stats(spark, "shelf.books")["pages"]["null_count"] == 1
    assert column_stats(spark, "shelf.pens")["refill"]["true_count"] == 3
    assert not rows(spark, "select * from analytics_stats.table_statistics where table_schema = 'shelf' and table_name = 'shelf_view'")

    # again, by argument: nothing changed, nothing scanned
    again = analyze(dbt, schema="shelf", columns="all")
    assert again.success, again.error
    assert "  shelf.pens: unchanged, 0 partition(s) scanned, 1 skipped" in again.log

    spark.sql("insert into shelf.pens select 5, false")
    noscan = analyze(dbt, statement="analyze tables in shelf compute statistics noscan")
    assert noscan.success, noscan.error
    assert "  shelf.pens: succeeded, noscan: size and file count of 1 partition(s) from the file listing" in noscan.log
    pens = table_stats(spark, "shelf.pens")[""]
    assert pens["file_count"] == len(rows(spark, "select distinct input_file_name() from shelf.pens"))


BAD_INPUTS = [
    ({"relation": "analytics.sales_view"}, "is a view"),
    ({"relation": "analytics.flat", "partition": {"a": 1}}, "is not partitioned"),
    ({"relation": "analytics.no_such_table"}, "unknown table analytics.no_such_table"),
    ({"relation": "no_such_schema.t"}, "unknown schema 'no_such_schema'"),
    ({"relation": "lakehouse.analytics.sales"}, "catalog 'lakehouse' is not supported (only spark_catalog)"),
    ({"relation": "a.b.c.d"}, "relation 'a.b.c.d' must be a name, schema.name or spark_catalog.schema.name"),
    ({"relation": SALES, "columns": ["amount", "nope"]}, "unknown column 'nope'"),
    ({"relation": SALES, "partition": {"country": "x"}}, "unknown partition column 'country'"),
    ({"relation": SALES, "partition": {"region": "asia"}}, "no partition of analytics.sales matches"),
    ({"relation": TYPED_PARTS, "partition": {"n": "1.5"}}, "partition value '1.5' is not a value of partition column 'n' (int) of analytics.typed_parts"),
    ({"statement": f"ANALYZE TABLE {TYPED_PARTS} PARTITION (d='someday') COMPUTE STATISTICS"}, "partition value 'someday' is not a value of partition column 'd' (date)"),
    ({"statement": f"ANALYZE TABLE {SALES} COMPUTE STATISTIC"}, "expected STATISTICS at position 39, found 'STATISTIC'"),
    ({"statement": f"ANALYZE {SALES} COMPUTE STATISTICS"}, "expected TABLE or TABLES at position 9"),
    ({"statement": "ANALYZE TABLES IN analytics COMPUTE STATISTICS FOR COLUMNS amount"}, "ANALYZE TABLES takes NOSCAN or FOR ALL COLUMNS (at position 52)"),
    ({"statement": "ANALYZE TABLES IN no_such_schema COMPUTE STATISTICS"}, "unknown schema 'no_such_schema'"),
    ({"statement": "ANALYZE TABLES IN analytics_stats COMPUTE STATISTICS"}, "holds dbt_analyze's own statistics tables"),
    ({"schema": "analytics", "columns": ["amount"]}, "'columns' with 'schema' can only be all"),
    ({"schema": "analytics", "relation": SALES}, "give either 'schema' (every table of it) or 'relation'"),
    ({"statement": f"ANALYZE TABLE {SALES} PARTITION (region='us' COMPUTE STATISTICS"}, "expected ',' or ')' at position"),
    ({"statement": f"ANALYZE TABLE {SALES} COMPUTE STATISTICS FOR COLUMNS"}, "expected a column name at position"),
    ({"statement": f"ANALYZE TABLE {SALES} COMPUTE STATISTICS FOR COLUMNS amount extra"}, "expected ',' or the end"),
    ({"statement": f"ANALYZE TABLE {SALES} COMPUTE STATISTICS NOSCAN FOR COLUMNS amount"}, "expected the end of the statement"),
    ({"relation": SALES, "noscan": True, "columns": ["amount"]}, "cannot be combined with column statistics"),
    ({"relation": SALES, "sketches": "all"}, "'sketches' must be full or basic"),
    ({"relation": SALES, "colums": "all"}, "unknown option 'colums'"),
    ({"relation": SALES, "top_k_tracked": "many"},
     "'top_k_tracked' (items a top-k sketch tracks) must be an integer from 1 to 1000000, got 'many'"),
    ({"relation": SALES, "top_k_tracked": 10}, "var dbt_analyze_top_k (20) must not exceed 'top_k_tracked' (10)"),
    ({}, "say what to analyze"),
]


# Settings (vars) out of range fail before anything is read; Spark would refuse them mid-scan, and
# the seed goes into SQL as a number.
BAD_SETTINGS = [
    ({"dbt_analyze_kll_k": 70000}, "var dbt_analyze_kll_k (KLL's k) must be an integer from 8 to 65535, got '70000'"),
    ({"dbt_analyze_hll_lg_k": 3}, "var dbt_analyze_hll_lg_k (HLL's lgK) must be an integer from 4 to 21, got '3'"),
    ({"dbt_analyze_histogram_bins": 0}, "var dbt_analyze_histogram_bins (bins per histogram) must be an integer of at least 1, got '0'"),
    ({"dbt_analyze_sample_seed": "1) or (1"}, "var dbt_analyze_sample_seed (the sampling seed) must be an integer, got '1) or (1'"),
    ({"dbt_analyze_top_k": 3000}, "var dbt_analyze_top_k (3000) must not exceed dbt_analyze_top_k_tracked (2048)"),
    ({"dbt_analyze_top_k_tracked": 2000000},
     "var dbt_analyze_top_k_tracked (items a top-k sketch tracks) must be an integer from 1 to 1000000, got '2000000'"),
    ({"dbt_analyze_most_common_values": 2049},
     "var dbt_analyze_most_common_values (2049) must not exceed dbt_analyze_top_k_tracked (2048)"),
    ({"dbt_analyze_most_common_values": 0},
     "var dbt_analyze_most_common_values (most common values kept per column) must be an integer of at least 1, got '0'"),
    ({"dbt_analyze_quantiles": [0.5, 2]}, "var dbt_analyze_quantiles must be a list of numbers from 0 to 1, got [0.5, 2]"),
    ({"dbt_analyze_compaction_wait_seconds": -5},
     "var dbt_analyze_compaction_wait_seconds (how long compact_statistics waits for runs still planning) must be an integer from 0 to 3600, got '-5'"),
]
BAD_REQUESTS = [(args, {}, message) for args, message in BAD_INPUTS] + [
    ({"relation": SALES, "columns": "all"}, settings, message) for settings, message in BAD_SETTINGS]
# Refused by the request's own checks (arguments, vars, the statement's grammar): before any
# statement is sent, so nothing is recorded either. The others are refused against the catalog,
# and recorded as failed runs.
CHECKED_BEFORE_ANY_STATEMENT = {message for _, message in BAD_SETTINGS} | {
    "catalog 'lakehouse' is not supported (only spark_catalog)",
    "relation 'a.b.c.d' must be a name, schema.name or spark_catalog.schema.name",
    "expected STATISTICS at position 39, found 'STATISTIC'", "expected TABLE or TABLES at position 9",
    "ANALYZE TABLES takes NOSCAN or FOR ALL COLUMNS (at position 52)", "'columns' with 'schema' can only be all",
    "give either 'schema' (every table of it) or 'relation'", "expected ',' or ')' at position",
    "expected a column name at position", "expected ',' or the end", "expected the end of the statement",
    "cannot be combined with column statistics", "'sketches' must be full or basic", "unknown option 'colums'",
    "'top_k_tracked' (items a top-k sketch tracks) must be an integer from 1 to 1000000, got 'many'",
    "var dbt_analyze_top_k (20) must not exceed 'top_k_tracked' (10)", "say what to analyze"}


def storage_counts(spark) -> dict:
    """The events of every run by kind, and the statistics rows: the views read the rows of the
    runs that succeeded, so a request that adds neither reads the same statistics."""
    counts = {r["event"]: r["n"] for r in rows(spark, "select event, count(*) as n from analytics_stats.analyze_run_events group by 1")}
    return {**counts, "statistics rows": rows(spark, "select count(*) as n from analytics_stats.statistics_history")[0]["n"]}


@pytest.mark.parametrize("args,settings,message", BAD_REQUESTS, ids=[m for _, _, m in BAD_REQUESTS])
def test_bad_input_is_refused_and_nothing_changes(spark, dbt, sales, args, settings, message):
    before = storage_counts(spark)
    result = dbt("run-operation", "analyze_table", "--args", json.dumps(args), "--vars", json.dumps(settings))
    assert not result.success
    assert message in result.error
    after = storage_counts(spark)
    if message in CHECKED_BEFORE_ANY_STATEMENT:
        assert statements_sent(result, "") == [] and after == before
        return
    # nothing written but the run's failure (and its start, if it got that far)
    for counts in (before, after):
        counts.pop("started", None)
    assert after == {**before, "failed": before.get("failed", 0) + 1}
    # and analyze_runs shows the run as failed, with the error
    failed = rows(spark, "select error from analytics_stats.analyze_runs where status = 'failed' order by started_at desc limit 1")
    assert message in failed[0]["error"]


def test_compaction_with_a_bad_wait_is_refused_before_it_blocks_runs(spark, dbt, sales):
    """The wait goes into SQL as a number of milliseconds; Java's sleep would refuse a negative one
    only after the block on new runs was set."""
    result = dbt("run-operation", "compact_statistics", "--vars", json.dumps({"dbt_analyze_compaction_wait_seconds": "ten"}))
    assert not result.success
    assert "var dbt_analyze_compaction_wait_seconds (how long compact_statistics waits for runs still planning) must be an integer" in result.error
    properties = {r["key"] for r in rows(spark, "show tblproperties analytics_stats.analyze_run_events")}
    assert "dbt_analyze.compacting" not in properties


def test_an_ephemeral_model_is_refused_by_name(spark, dbt, sales):
    model = PROJECT / "models" / "plain" / "inlined_sales.sql"
    model.write_text("{{ config(materialized='ephemeral') }}\nselect * from analytics.sales\n")
    try:
        result = analyze(dbt, relation="inlined_sales")
        assert not result.success
        assert "model 'inlined_sales' is ephemeral: it is inlined into the models that use it and has no table to analyze" in result.error
    finally:
        model.unlink()


def test_hostile_partition_value_is_only_data(spark, dbt):
    hostile = "x' OR '1'='1; -- drop\nline/a=b%"
    spark.sql("drop table if exists analytics.hostile")
    spark.sql("create table analytics.hostile (v int, k string) using parquet partitioned by (k)")
    spark.createDataFrame([(1, hostile), (2, "plain"), (3, None)], "v int, k string").write.insertInto("analytics.hostile")
    result = analyze(dbt, relation="analytics.hostile", partition={"k": hostile}, columns="all")
    assert result.success, result.error
    assert "1 of 3 partition(s)" in result.log
    specs = table_stats(spark, "analytics.hostile")
    hostile_spec = [s for s in specs if s.startswith("k=x%27")]
    assert len(hostile_spec) == 1 and specs[hostile_spec[0]]["row_count"] == 1
    assert hostile_spec[0] in [r["partition"] for r in rows(spark, "show partitions analytics.hostile")]
    # the other partitions were not selected; the whole table waits for them
    assert specs[""]["row_count"] is None and specs[""]["partitions_analyzed"] == 1
    result = analyze(dbt, relation="analytics.hostile", columns="all")
    assert result.success, result.error
    assert "2 of 3 partition(s)" in result.log
    assert table_stats(spark, "analytics.hostile")[""]["row_count"] == 3


def test_older_engines_degrade_with_a_clear_message(dbt):
    """Spark 4.3 has every sketch function; an engine without KLL or top-k (Spark 3.5, Databricks
    Runtime below 18) runs with basic sketches and says why; one without HLL stops."""
    result = dbt("run-operation", "fit_to_engine_with", "--args", "{available: [hll_sketch_agg, kll_sketch_agg_double, approx_top_k_accumulate]}")
    assert result.success and "FIT: full" in result.log
    assert 'DETECTED: ["hll_sketch_agg", "kll_sketch_agg_double", "approx_top_k_accumulate"]' in result.log
    result = dbt("run-operation", "fit_to_engine_with", "--args", "{available: [hll_sketch_agg]}")
    assert result.success and "FIT: basic" in result.log
    assert ("this engine has no kll_sketch_agg_double or approx_top_k_accumulate (Spark 4.1+, Databricks Runtime 18+): "
            "quantiles, histograms, top values and string min/max are skipped (sketches: basic)") in result.log
    result = dbt("run-operation", "fit_to_engine_with", "--args", "{available: []}")
    assert not result.success and "this engine has no hll_sketch_agg (Spark 3.5+, Databricks Runtime 13.3+)" in result.error


def test_a_run_without_the_library_says_so_and_changes_nothing(spark, dbt, sales):
    """The library's adapter methods are what dbt-analyze's import adds to dbt-spark's adapter; a
    dbt without them (the package alone) is refused before the run reads or writes anything."""
    from dbt.adapters.spark.impl import SparkAdapter

    method = SparkAdapter.dbt_analyze_read_states
    before = storage_counts(spark)
    del SparkAdapter.dbt_analyze_read_states
    SparkAdapter._available_ = SparkAdapter._available_ - {"dbt_analyze_read_states"}
    try:
        result = analyze(dbt, relation=SALES, columns="all")
    finally:
        SparkAdapter.dbt_analyze_read_states = method
        SparkAdapter._available_ = SparkAdapter._available_ | {"dbt_analyze_read_states"}
    assert not result.success
    assert "the dbt-analyze Python library is not installed where dbt runs" in result.error
    assert storage_counts(spark) == {**before, "failed": before.get("failed", 0) + 1}
