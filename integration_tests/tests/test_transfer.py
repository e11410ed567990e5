"""export_statistics → import_statistics into a fresh metastore round-trips every value and stays
mergeable; bad documents (damaged values and sketches included) are refused. set_statistics pins values until the next collection."""

import json
import shutil

import pytest
from conftest import PROJECT, analyze, dbt_steps, printed_statistics, rows, table_stats, without_runs

FRESH_HOME = PROJECT.parent / ".spark" / "transfer"
CREATE = ["create database if not exists analytics",
          "create table analytics.moved (id bigint, s string, d date, p int) using parquet partitioned by (p)",
          "insert into analytics.moved select id, concat('v', cast(id % 50 as string)), date_add(date'2024-01-01', cast(id % 9 as int)), cast(id % 3 as int) from range(3000)"]


def fresh(*steps: dict) -> tuple[int, str]:
    """Steps in a dbt process on a fresh metastore of its own."""
    return dbt_steps(FRESH_HOME, {"DBT_ANALYZE_HOME": str(FRESH_HOME)}, *steps)


@pytest.fixture(scope="module")
def exported(spark, dbt, tmp_path_factory):
    spark.sql("drop table if exists analytics.moved")
    for statement in CREATE[1:]:
        spark.sql(statement)
    assert analyze(dbt, relation="analytics.moved", columns="all").success
    path = tmp_path_factory.mktemp("export") / "statistics.json"
    result = dbt("run-operation", "export_statistics", "--args", json.dumps({"tables": ["analytics.moved"], "path": str(path)}))
    assert result.success, result.error
    result = dbt("run-operation", "print_current_statistics", "--args", "{schema: analytics, table: moved}")
    return path, without_runs(printed_statistics(result.log)[0])


def test_export_import_round_trips_and_stays_mergeable(exported):
    path, source = exported
    shutil.rmtree(FRESH_HOME, ignore_errors=True)
    FRESH_HOME.mkdir(parents=True)
    current = {"current": {"schema": "analytics", "table": "moved"}}
    code, output = fresh({"sql": CREATE}, {"import_statistics": {"path": str(path)}}, current)
    assert code == 0, output[-3000:]
    assert "imported the statistics of analytics.moved (12 partition state(s))" in output  # 3 partitions x (table + 3 columns)
    assert without_runs(printed_statistics(output)[0]) == source  # every value, quantiles, histograms and top values included

    # A new partition is scanned alone and merged with the imported states.
    code, output = fresh({"sql": "insert into analytics.moved select id, 'new', date'2030-01-01', 7 from range(100)"},
                         {"analyze_table": {"relation": "analytics.moved", "columns": "all"}}, current)
    assert code == 0, output[-3000:]
    assert "1 of 4 partition(s)" in output
    merged = printed_statistics(output)[0]
    table = {r["partition_spec"]: r for r in merged["table_statistics"]}
    assert table[""]["row_count"] == "3100"
    columns = {r["column_name"]: r for r in merged["column_statistics"] if r["partition_spec"] == ""}
    assert columns["s"]["distinct_count"] == "51" and columns["d"]["max_value"] == "2030-01-01"


def test_states_whose_top_k_sketch_holds_text_are_scanned_again(spark, exported):
    """States taken before the top-k sketch took numbers, dates and timestamps as they are hold
    their items as text (as a document exported then does). Such a state is stale: the next run
    scans its partition again and merges it with the others, whose top values count every row."""
    path, _ = exported
    document = json.loads(path.read_text())
    state = next(r for r in document["tables"][0]["rows"]["partition_states"] if r["column_name"] == "d")
    partition = state["partition_spec"].split("=")[1]
    # grouped, not filtered: Hive's metastore may refuse a filter on an int partition column in a
    # session that has made many partitions (docs/decisions/partition-values-beside-the-spec.md)
    as_text = next(r["sketch"] for r in rows(spark, "select p, to_json(cast(approx_top_k_accumulate(cast(d as string), 256) as"
                                                    " struct<sketch:binary,maxItemsTracked:int,itemDataType:string,itemDataTypeDDL:string>))"
                                                    " as sketch from analytics.moved group by p") if str(r["p"]) == partition)
    state["top_values_sketch"] = json.loads(as_text)
    then = path.parent / "text_items.json"
    then.write_text(json.dumps(document))
    home = FRESH_HOME.parent / "transfer_text_items"
    shutil.rmtree(home, ignore_errors=True)
    home.mkdir(parents=True)
    code, output = dbt_steps(home, {"DBT_ANALYZE_HOME": str(home)}, {"sql": CREATE}, {"import_statistics": {"path": str(then)}},
                             {"analyze_table": {"relation": "analytics.moved", "columns": "all"}},
                             {"current": {"schema": "analytics", "table": "moved"}})
    assert code == 0, output[-3000:]
    assert "1 of 3 partition(s)" in output
    top = {r["value"]: int(r["frequency"]) for r in printed_statistics(output)[0]["column_top_values"]
           if r["column_name"] == "d" and r["partition_spec"] == ""}
    assert top == {r["d"]: r["n"] for r in rows(spark, "select cast(d as string) as d, count(*) as n from analytics.moved group by 1")}


def damaged_state(field: str, value):
    """A change to a document: one field of the partition states of column id."""
    def change(document: dict) -> None:
        for row in document["tables"][0]["rows"]["partition_states"]:
            if row["column_name"] == "id":
                row[field] = value
    return change


@pytest.mark.parametrize("change, message", [
    (lambda d: d.update(version=99), "statistics document version 99 is unknown"),
    (damaged_state("row_count", "many"), "partition_states rows in the document do not read as statistics: a value that is not of its column's type"),
    (damaged_state("column_name", None), "a row without its table_schema, table_name, partition_spec, column_name, row_count"),
    (damaged_state("ndv_sketch", "AAAAAAAAAAAA"), "HLL_INVALID_INPUT_SKETCH_BUFFER"),
    (damaged_state("quantile_sketch", "AAAAAAAAAAAA"), "KLL_INVALID_INPUT_SKETCH_BUFFER"),
    (lambda d: d.update(format="something else"), "is not a dbt_analyze statistics document"),
    (lambda d: d["tables"][0]["columns"].update(id="int"), "column 'id' is bigint here but int in the document"),
    (lambda d: d["tables"][0].update(table="nowhere"), "nowhere"),
])
def test_bad_documents_are_refused_and_nothing_changes(spark, dbt, exported, tmp_path, change, message):
    path, _ = exported
    document = json.loads(path.read_text())
    change(document)
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(document))
    runs = rows(spark, "select count(*) as n from analytics_stats.analyze_run_events")[0]["n"]
    result = dbt("run-operation", "import_statistics", "--args", json.dumps({"path": str(bad)}))
    assert not result.success
    assert message in result.error
    assert rows(spark, "select count(*) as n from analytics_stats.analyze_run_events")[0]["n"] == runs


def test_set_statistics_pins_values_until_the_next_collection(spark, dbt, exported):
    result = dbt("run-operation", "set_statistics", "--args", json.dumps(
        {"relation": "analytics.moved", "row_count": 1_000_000, "column": "s", "distinct_count": 5000, "min_value": "a"}))
    assert result.success, result.error
    assert table_stats(spark, "analytics.moved")[""]["row_count"] == 1_000_000
    pinned = rows(spark, "select * from analytics_stats.column_statistics where table_name = 'moved' and partition_spec = '' and column_name = 's'")[0]
    assert (pinned["distinct_count"], pinned["min_value"]) == (5000, "a")
    last = rows(spark, "select notes from analytics_stats.analyze_runs where table_name = 'moved' order by started_at desc limit 1")[0]
    assert last["notes"].startswith("manual:")
    # unchanged data: the pinned values stay
    assert analyze(dbt, relation="analytics.moved", columns="all").success
    assert table_stats(spark, "analytics.moved")[""]["row_count"] == 1_000_000
    # the next real collection replaces them
    spark.sql("insert into analytics.moved select 1, 'x', date'2024-01-01', 0")
    assert analyze(dbt, relation="analytics.moved", columns="all").success
    assert table_stats(spark, "analytics.moved")[""]["row_count"] == 3001

    refused = dbt("run-operation", "set_statistics", "--args", json.dumps({"relation": "analytics.moved", "column": "nope", "null_count": 1}))
    assert not refused.success and "unknown column 'nope'" in refused.error


@pytest.mark.parametrize("pin, message", [
    ({"column": "d", "min_value": "someday"}, "min_value 'someday' is not a value of column 'd' (date)"),
    ({"column": "id", "max_value": "1e40"}, "max_value '1e40' is not a value of column 'id' (bigint)"),
    ({"column": "d", "min_value": "2025-01-01", "max_value": "2024-01-01"}, "min_value 2025-01-01 is above max_value 2024-01-01 of column 'd'"),
    ({"column": "d", "min_value": "2024-2-1"}, "min_value 2024-02-01 is above the current max_value 2024-01-09 of column 'd' (pin min_value"),
    ({"column": "id", "max_value": "-5"}, "max_value -5 is below the current min_value 0 of column 'id'"),
])
def test_set_statistics_refuses_a_min_or_max_that_is_not_a_value_of_the_column(spark, dbt, exported, pin, message):
    runs = rows(spark, "select count(*) as n from analytics_stats.analyze_run_events")[0]["n"]
    result = dbt("run-operation", "set_statistics", "--args", json.dumps({"relation": "analytics.moved", **pin}))
    assert not result.success and message in result.error
    assert rows(spark, "select count(*) as n from analytics_stats.analyze_run_events")[0]["n"] == runs


def test_set_statistics_keeps_a_min_or_max_as_the_column_type_renders_it_for_a_column_named_in_any_case(spark, dbt, exported):
    """As a collection stores it (cast(x as string)), so the merge and the catalog read it back; the
    column named in any case, as Spark's names are."""
    result = dbt("run-operation", "set_statistics", "--args", json.dumps({"relation": "analytics.moved", "column": "D", "min_value": "2023-7-4"}))
    assert result.success, result.error
    pinned = rows(spark, "select min_value from analytics_stats.column_statistics where table_name = 'moved' and partition_spec = '' and column_name = 'd'")
    assert pinned == [{"min_value": "2023-07-04"}]
