"""The package in a dbt project: post-hooks, ref()-able statistics, Python models on plain Spark."""

import json
import re

import pytest
from conftest import PROJECT, TARGET, column_stats, rows, table_stats


@pytest.fixture(scope="module")
def built(spark, dbt):
    result = dbt("build", "--vars", "{events_day: 1}")
    assert result.success, result.error
    return result


def test_post_hook_analyzes_tables_and_skips_views(spark, built):
    assert table_stats(spark, "analytics.orders")[""]["row_count"] == 7
    assert set(column_stats(spark, "analytics.orders")) == {"order_id", "customer", "amount", "status", "is_paid"}
    assert table_stats(spark, "analytics.customers")[""]["row_count"] > 0
    # the model's config `analyze: {top_k_tracked: 64}`
    assert {r["n"] for r in rows(spark, """select state_top_values_sketch.maxItemsTracked as n
        from analytics_stats.statistics_history where table_name = 'customers' and column_name = 'customer'""")} == {64}
    assert "skipping analytics.orders_view (view: no data of its own to analyze)" in built.log
    assert table_stats(spark, "analytics.never_analyzed") == {}
    # dbt has just replaced a table model's data: its run is full; an incremental model's is not
    requests = {r["table_name"]: json.loads(r["request"]) for r in rows(
        spark, "select table_name, request from analytics_stats.analyze_runs where table_name in ('orders', 'events')")}
    assert requests["orders"]["full"] is True and "full" not in requests["events"], requests


def test_python_model_runs_in_the_embedded_session(spark, built):
    sizes = rows(spark, "select size, count(*) as n from analytics.order_sizes group by size order by size")
    assert sizes == [{"size": "large", "n": 3}, {"size": "small", "n": 4}]
    # it was analyzed by its folder's post-hook like any table
    assert table_stats(spark, "analytics.order_sizes")[""]["row_count"] == 7


def test_seeds_load_as_written_on_the_session_connection(spark, dbt, built):
    """An empty cell is NULL (dbt-spark's session connection wrote the string 'None'), an apostrophe
    and a backslash are kept (they broke the INSERT, or were read as an escape)."""
    assert rows(spark, "select * from analytics.awkward_values order by id") == [
        {"id": 1, "name": "O'Brien", "note": "back\\slash", "score": 10, "active": True},
        {"id": 2, "name": None, "note": "plain", "score": None, "active": False},
        {"id": 3, "name": "None", "note": "comma, quoted", "score": 3, "active": None}]
    assert rows(spark, "select count(*) as n from analytics.orders_seed where customer is null") == [{"n": 1}]
    result = dbt("run-operation", "analyze_table", "--args", "{relation: awkward_values, columns: all}")
    assert result.success, result.error
    stats = column_stats(spark, "analytics.awkward_values")
    assert (stats["name"]["null_count"], stats["name"]["distinct_count"], stats["score"]["null_count"]) == (1, 2, 1)


def test_statistics_tables_are_models_of_the_package(spark, built):
    nodes = rows(spark, "show tables in analytics_stats")
    names = {n["tableName"] for n in nodes}
    assert {"table_statistics", "column_statistics", "analyze_runs"} <= names


def test_statistics_views_are_created_again_only_when_their_definition_changed(spark, dbt, built):
    """A build leaves the package's views as they are when nothing in them changed; a dropped view,
    another definition (a fingerprint that does not match) or --full-refresh creates them again."""
    views = ["analyze_runs", "column_statistics", "column_histograms", "column_quantiles", "column_top_values",
             "table_statistics", "table_staleness", "statistics_overview", "column_group_statistics",
             "column_statistics_estimated"]

    def created(*args):
        result = dbt("run", "--select", "package:dbt_analyze,config.materialized:statistics_view", *args)
        assert result.success, result.error
        kept = {v for v in views if f"dbt_analyze: analytics_stats.{v} unchanged, kept as it is" in result.log}
        made = {v for v in views if re.search(rf"create or replace view analytics_stats\.{v}\b", result.log)}
        assert kept | made == set(views) and not kept & made, (kept, made)
        return made

    assert created() == set()
    spark.sql("drop view analytics_stats.table_statistics")
    spark.sql("alter view analytics_stats.column_quantiles set tblproperties ('dbt_analyze.view_fingerprint' = 'older')")
    assert created() == {"table_statistics", "column_quantiles"}
    assert table_stats(spark, "analytics.orders")[""]["row_count"] == 7  # read through the view made again
    assert created("--full-refresh") == set(views)
    assert created() == set()


def test_incremental_model_post_hook_scans_only_the_new_partition(spark, dbt, built):
    result = dbt("run", "--select", "events", "--vars", "{events_day: 2}")
    assert result.success, result.error
    assert "scanning analytics.events: 1 of 2 partition(s)" in result.log
    stats = table_stats(spark, "analytics.events")
    assert stats[""]["row_count"] == 200 and stats["day=2"]["row_count"] == 100


def test_insert_overwrite_model_post_hook_scans_only_the_partition_it_wrote(spark, dbt, built):
    result = dbt("run", "--select", "events", "events_daily", "--vars", "{events_day: 2}")  # a new partition
    assert result.success, result.error
    assert "scanning analytics.events_daily: 1 of 2 partition(s)" in result.log
    first = table_stats(spark, "analytics.events_daily")
    result = dbt("run", "--select", "events_daily", "--vars", "{events_day: 1}")  # an existing one rewritten
    assert result.success, result.error
    assert "scanning analytics.events_daily: 1 of 2 partition(s)" in result.log
    stats = table_stats(spark, "analytics.events_daily")
    assert stats["day=2"]["collected_at"] == first["day=2"]["collected_at"]  # skipped
    assert stats["day=1"]["collected_at"] > first["day=1"]["collected_at"]
    assert stats[""]["row_count"] == 14 and stats["day=1"]["row_count"] == 7


def test_microbatch_model_post_hook_scans_only_the_days_the_run_wrote(spark, dbt, built):
    enabled = ("--vars", "{with_microbatch: true}")
    result = dbt("run", "--select", "clicks", "clicks_daily", *enabled, "--event-time-start", "2024-01-01", "--event-time-end", "2024-01-04")
    assert result.success, result.error
    assert result.log.count("dbt_analyze: scanning analytics.clicks_daily") == 1  # once, after the 3 batches
    assert "scanning analytics.clicks_daily: 3 of 3 partition(s)" in result.log
    result = dbt("run", "--select", "clicks_daily", *enabled, "--event-time-start", "2024-01-02", "--event-time-end", "2024-01-03")
    assert result.success, result.error
    assert "scanning analytics.clicks_daily: 1 of 3 partition(s)" in result.log
    stats = table_stats(spark, "analytics.clicks_daily")
    assert stats[""]["row_count"] == 300 and stats["click_date=2024-01-02"]["row_count"] == 100


def test_a_source_is_named_as_source_name_dot_table(spark, dbt, built):
    """raw.orders_seed is the source (schema analytics), not a schema called raw."""
    result = dbt("run-operation", "analyze_table", "--args", "{relation: raw.orders_seed, columns: [amount]}")
    assert result.success, result.error
    assert table_stats(spark, "analytics.orders_seed")[""]["row_count"] == 7


def test_a_versioned_model_named_in_a_request_is_its_latest_version(spark, dbt, built):
    """As ref() resolves the name: v2 (latest_version), not v3 (a prerelease) nor v1."""
    versions = "{dbt_analyze_test_versions: true}"
    result = dbt("run", "--select", "customer_tiers", "--vars", versions)
    assert result.success, result.error
    result = dbt("run-operation", "analyze_table", "--args", "{relation: customer_tiers, columns: all}", "--vars", versions)
    assert result.success, result.error
    analyzed = rows(spark, "select table_name, column_name, min_value from analytics_stats.column_statistics"
                           " where table_name like 'customer_tiers%' and column_name = 'tier_version'")
    assert analyzed == [{"table_name": "customer_tiers_v2", "column_name": "tier_version", "min_value": "2"}]


def test_failing_python_model_reports_its_traceback(spark, dbt, tmp_path):
    model = built_model_path("broken_model.py")
    model.write_text("def model(dbt, session):\n    if True:\n        raise ValueError('this model is broken on purpose')\n    return session.range(1)\n")
    try:
        result = dbt("run", "--select", "broken_model")
        assert not result.success
        # dbt's failure summary carries the model's own traceback, with its code, as on Databricks
        summary = next(m for m in result.messages if "Python model failed with traceback as:" in m)
        assert "raise ValueError('this model is broken on purpose')" in summary
        assert "ValueError: this model is broken on purpose" in summary and "pyspark" not in summary
        # its line numbers are those of the file dbt ran
        line = int(re.search(r"line (\d+), in model\n", summary).group(1))
        ran = (TARGET / "run" / "dbt_analyze_integration_tests" / "models" / "plain" / "broken_model.py").read_text()
        assert "raise ValueError" in ran.splitlines()[line - 1]
    finally:
        model.unlink()


def built_model_path(name):
    return PROJECT / "models" / "plain" / name


def test_downstream_models_use_statistics_at_compile_time(spark, built):
    buckets = rows(spark, "select amount, amount_bucket, edge_count from analytics.order_amount_buckets where amount is not null order by amount")
    assert buckets[0]["edge_count"] > 2
    assert [b["amount_bucket"] for b in buckets] == sorted(b["amount_bucket"] for b in buckets)
    assert len({b["amount_bucket"] for b in buckets}) >= 3
    salted = rows(spark, "select customer, join_key, max_amount_at_compile_time as m, amount_outlier_fence as fence from analytics.salted_orders")
    alice = [r["join_key"] for r in salted if r["customer"] == "alice"]
    assert alice and all(key.startswith("alice#") for key in alice)  # alice has the most orders
    assert all(r["join_key"] == r["customer"] for r in salted if r["customer"] != "alice")
    assert float(salted[0]["m"]) == 100.0
    # statistics are numbers a model can compute with (a float times dbt's Decimal would fail)
    exact = rows(spark, "select avg(amount) + 2.5 * stddev(amount) as fence from analytics.orders")[0]["fence"]
    assert float(salted[0]["fence"]) == pytest.approx(float(exact))


def test_analyze_stale_as_an_on_run_end_hook_refreshes_what_changed(spark, dbt, built):
    """dbt renders hooks while it parses too, when queries return nothing: the operations then do nothing."""
    spark.sql("create database if not exists hooked_db")
    spark.sql("drop table if exists hooked_db.parts")
    spark.sql("create table hooked_db.parts (v int, p int) using parquet partitioned by (p)")
    spark.sql("insert into hooked_db.parts values (1, 1)")
    assert dbt("run-operation", "analyze_table", "--args", "{relation: hooked_db.parts, columns: all}").success
    spark.sql("insert into hooked_db.parts values (2, 2)")
    result = dbt("run", "--select", "statistics_overview", "--vars", "{refresh_stale_schema: hooked_db}")
    assert result.success, result.error
    assert "dbt_analyze: 1 analyzed table(s); 1 changed:\n  hooked_db.parts: re-analyzed p=2" in result.log
    assert "0 analyzed table(s)" not in result.log  # nothing at parse time
    assert table_stats(spark, "hooked_db.parts")[""]["row_count"] == 2


def test_statistics_overview_summarizes_each_table(spark, built):
    overview = rows(spark, "select * from analytics_stats.statistics_overview where table_schema = 'analytics' and table_name = 'orders'")[0]
    assert overview["row_count"] == 7 and overview["columns_analyzed"] == 5
    assert overview["last_run_status"] == "succeeded" and overview["last_run_rows_scanned"] == 7
    assert overview["last_run_scan_ms"] is not None and overview["last_run_sketch_bytes"] > 0
    assert overview["freshness"] in ("unchecked", "fresh")


def test_post_hook_with_publish_puts_statistics_into_sparks_catalog(spark, built):
    # the model is rebuilt by every build, which drops Spark's catalog statistics: the hook publishes again
    described = {r["col_name"]: r["data_type"] for r in rows(spark, "describe table extended analytics.orders")}
    assert described["Statistics"].endswith(" 7 rows")
    column = {r["info_name"]: r["info_value"] for r in rows(spark, "describe extended analytics.orders amount")}
    assert column["num_nulls"] == "1" and column["max"] == "100.00" and column["histogram"] != "NULL"
    assert "published the statistics of analytics.orders" in built.log


def test_a_python_model_that_sets_nothing_runs_and_is_parquet(spark, built):
    """dbt-spark would write it as delta, which plain Spark does not have."""
    assert [r["n"] for r in rows(spark, "select n from analytics.default_format order by n")] == [0, 1, 2, 3, 4]
    provider = {r["col_name"]: r["data_type"] for r in rows(spark, "describe table extended analytics.default_format")}["Provider"]
    assert provider == "parquet"


def test_a_python_model_that_returns_pandas_runs(spark, built):
    """dbt's documented shape of a Python model: a ref read into pandas, a pandas result."""
    found = rows(spark, "select status, orders, amount from analytics.pandas_frame order by status")
    expected = rows(spark, "select status, count(*) as orders, cast(sum(amount) as double) as amount from analytics.orders group by status order by status")
    assert found == expected and len(found) == 3


def test_hybrid_histograms_list_common_values_apart(spark, dbt, built):
    """The package's Python model: 5 values hold 40% of the rows, the rest is spread over 9,000."""
    assert not spark.catalog.tableExists("analytics_stats.column_histograms_hybrid"), "disabled unless asked for"
    spark.sql("drop table if exists analytics.hybrid_input")
    spark.sql("""create table analytics.hybrid_input using parquet as
                 select if(id % 100 < 40, id % 5, 1000 + (id * 7) % 9000) as x from range(50000)""")
    analyzed = dbt("run-operation", "analyze_table", "--args", "{relation: analytics.hybrid_input, columns: all}",
                   "--vars", "{dbt_analyze_histogram: {kind: hybrid}}")
    assert analyzed.success, analyzed.error
    assert "dbt run --select dbt_analyze.column_histograms_hybrid refreshes them" in analyzed.log
    result = dbt("run", "--select", "dbt_analyze.column_histograms_hybrid", "--vars", "{dbt_analyze_histogram: {kind: hybrid}}")
    assert result.success, result.error
    found = rows(spark, "select * from analytics_stats.column_histograms_hybrid where table_name = 'hybrid_input' order by kind, bin")
    common = {int(r["lower_bound"]): r["row_count"] for r in found if r["kind"] == "mcv"}
    assert common == {value: 4000 for value in range(5)}
    bins = [r for r in found if r["kind"] == "bin"]
    assert round(sum(r["row_count"] for r in bins)) == 30000 and len(bins) > 200
    assert int(bins[0]["lower_bound"]) == 4, "bins are (lower, upper]: the common values 0-4 are not in them"
    # each bound within 1% rank of the exact equi-height split of the other rows (KLL's rank error,
    # as for the plain histograms)
    exact = rows(spark, "select " + ", ".join(
        f"count_if(x > 4 and x <= {int(b['upper_bound'])}) as b{b['bin']}" for b in bins) + " from analytics.hybrid_input")[0]
    errors = [abs(exact[f"b{b['bin']}"] / 30000 - b["bin"] / len(bins)) for b in bins]
    assert max(errors) <= 0.01, max(errors)


def test_first_use_with_dbt_threads_creates_the_statistics_tables_once(spark, dbt, built):
    """dbt's threads share one process: on a fresh statistics schema the package's view models'
    pre-hooks and the models' post-hooks all find the storage missing at once; exactly one
    creates it and the rest use it (no 'already exists' or 'cannot be found' failures), and no
    ERROR line of pyspark's says the missing storage was not found (the session asks its catalog)."""
    import logging

    from pyspark.logger import PySparkLogger

    class Kept(logging.Handler):
        def __init__(self) -> None:
            super().__init__()
            self.messages: list[str] = []

        def emit(self, record: logging.LogRecord) -> None:
            self.messages.append(record.getMessage())

    spark_errors, kept = PySparkLogger.getLogger("SQLQueryContextLogger"), Kept()
    spark_errors.addHandler(kept)
    schema = "analytics_threads_stats"
    spark.sql(f"drop schema if exists {schema} cascade")
    try:
        result = dbt("run", "--threads", "4", "--select", "package:dbt_analyze", "customers", "orders", "order_sizes",
                     "--vars", f"{{dbt_analyze_schema: {schema}}}")
        assert result.success, result.error
        views = {r["viewName"] for r in rows(spark, f"show views in {schema}")}
        assert {"analyze_runs", "table_statistics", "column_statistics", "column_histograms", "table_staleness", "statistics_overview"} <= views
        analyzed = {r["table_name"] for r in rows(spark, f"select table_name from {schema}.table_statistics where partition_spec = ''")}
        assert analyzed == {"customers", "orders", "order_sizes"}
        assert not [m for m in kept.messages if "TABLE_OR_VIEW_NOT_FOUND" in m]
    finally:
        spark_errors.removeHandler(kept)
        spark.sql(f"drop schema if exists {schema} cascade")
