"""Column groups: the distinct combinations of columns that GROUP BYs and joins use together,
counted in the run's one scan, kept per partition and merged like columns."""

import json

import pytest
from conftest import PROJECT, analyze, column_stats, rows

PLACES = "analytics.places"  # partitioned by day; zip determines city, status and flag move together
FLAT = "analytics.places_flat"  # the same rows, unpartitioned: one scan of the whole table

# 3,000 rows over 3 days: 600 zip codes in 60 cities (zip -> city), 4 statuses each with its one flag,
# and a few rows with no zip.
PLACES_SQL = """
select id, if(id % 97 = 0, null, concat('z', id % 600)) as zip, concat('city', id % 600 % 60) as city,
       concat('s', id % 4) as status, id % 4 < 2 as flag, id % 1000 as amount,
       concat('2024-01-0', 1 + id % 3) as day
from range(3000) t(id)
"""


def groups(spark, table: str, partition_spec: str = "") -> dict[tuple, dict]:
    schema, name = table.split(".")
    found = rows(spark, f"""select * from analytics_stats.column_group_statistics
                           where table_schema = '{schema}' and table_name = '{name}' and partition_spec = '{partition_spec}'""")
    return {tuple(r["column_names"]): r for r in found}


def exact(spark, table: str, columns: tuple, where: str = "true") -> tuple[int, int]:
    """(distinct combinations among rows with every column set, rows with one of them null)."""
    present = " and ".join(f"{c} is not null" for c in columns)
    distinct = spark.sql(f"select count(distinct {', '.join(columns)}) from {table} where {where} and {present}").collect()[0][0]
    nulls = spark.sql(f"select count(*) from {table} where {where} and not ({present})").collect()[0][0]
    return distinct, nulls


@pytest.fixture(scope="module")
def places(spark, dbt):
    spark.sql("create database if not exists analytics")
    for table in (PLACES, FLAT):
        spark.sql(f"drop table if exists {table}")
    spark.sql(f"create table {PLACES} using parquet partitioned by (day) as {PLACES_SQL}")
    spark.sql(f"create table {FLAT} using parquet as {PLACES_SQL}")
    return PLACES


def test_explicit_groups_are_counted_in_the_scan(spark, dbt, places):
    result = analyze(dbt, relation=FLAT, columns="all", column_groups=[["city", "zip"], ["status", "flag"]])
    assert result.success, result.error
    found = groups(spark, FLAT)
    assert set(found) == {("zip", "city"), ("status", "flag")}  # in the table's column order
    for columns, row in found.items():
        distinct, nulls = exact(spark, FLAT, columns)
        assert abs(row["distinct_count"] - distinct) <= 0.02 * distinct, (columns, row["distinct_count"], distinct)
        assert row["null_count"] == nulls
    # the independence product overshoots; the group does not
    columns = column_stats(spark, FLAT)
    assert columns["zip"]["distinct_count"] * columns["city"]["distinct_count"] > 10 * found[("zip", "city")]["distinct_count"]
    assert found[("status", "flag")]["distinct_count"] == 4
    # groups are not columns
    assert not [c for c in columns if c.startswith("[")]


def test_groups_merge_across_partitions_as_one_scan(spark, dbt, places):
    # the partitioned table analyzed a partition at a time: each later run scans its one new
    # partition and merges the stored states; the group comes along without being asked again
    first = analyze(dbt, relation=PLACES, partition={"day": "2024-01-01"}, columns="all", column_groups=[["zip", "city"]])
    assert first.success, first.error
    for day in ("2024-01-02", "2024-01-03"):
        later = analyze(dbt, relation=PLACES, partition={"day": day}, columns="all")
        assert later.success, later.error
        assert "scanning analytics.places: 1 of 3 partition(s)" in later.log
    merged = groups(spark, PLACES)[("zip", "city")]
    whole = analyze(dbt, relation=FLAT, columns="all", column_groups=[["zip", "city"]])
    assert whole.success, whole.error
    one_scan = groups(spark, FLAT)[("zip", "city")]
    distinct, nulls = exact(spark, FLAT, ("zip", "city"))
    assert merged["partitions_analyzed"] == 3
    assert merged["null_count"] == one_scan["null_count"] == nulls
    # an HLL union of the partitions' sketches is the sketch of the whole: the same estimate
    assert merged["distinct_count"] == one_scan["distinct_count"]
    assert abs(merged["distinct_count"] - distinct) <= 0.02 * distinct
    # and each partition's own row
    for day in ("2024-01-01", "2024-01-02", "2024-01-03"):
        part = groups(spark, PLACES, f"day={day}")[("zip", "city")]
        d, n = exact(spark, PLACES, ("zip", "city"), f"day = '{day}'")
        assert abs(part["distinct_count"] - d) <= 0.02 * d and part["null_count"] == n


@pytest.mark.parametrize("groups_arg, message", [
    ([["zip", "nowhere"]], "unknown column 'nowhere' in column group"),
    ([["zip"]], "has fewer than two columns"),
    ([["zip", "ZIP"]], "has fewer than two columns"),
    ("zip, city", "'column_groups' must be auto or a list of column lists"),
    ([["zip", 3]], "a column group must be a list of column names"),
])
def test_bad_groups_are_refused(spark, dbt, places, groups_arg, message):
    result = analyze(dbt, relation=FLAT, columns="all", column_groups=groups_arg)
    assert not result.success
    assert message in result.error, result.error


def test_groups_on_a_view_or_with_noscan_are_refused(spark, dbt, places):
    spark.sql(f"create or replace view analytics.places_view as select * from {FLAT}")
    on_view = analyze(dbt, relation="analytics.places_view", column_groups=[["zip", "city"]])
    assert not on_view.success and "view" in on_view.error
    noscan = analyze(dbt, relation=FLAT, noscan=True, column_groups=[["zip", "city"]])
    assert not noscan.success and "cannot be combined with column groups" in noscan.error


GROUPED = ["--vars", json.dumps({"column_groups": True})]  # the models of models/grouped


@pytest.fixture(scope="module")
def grouped(spark, dbt):
    """places and places_by_zip_city built, each analyzed by its post-hook with column_groups: auto."""
    built = dbt("run", "--select", "places", "places_by_zip_city", *GROUPED)
    assert built.success, built.error
    return built


def test_auto_takes_the_groups_of_the_models_below(spark, grouped):
    assert ("dbt_analyze: analytics.places: column groups from the models that read it: (zip, city) from"
            " places_by_zip_city, places_joined; (status, flag) from places_status_flags") in grouped.log
    assert set(groups(spark, "analytics.places")) == {("zip", "city"), ("status", "flag")}
    # a two-column join's keys are a group of each side
    assert "analytics.places_by_zip_city: column groups from the models that read it: (zip, city) from places_joined" in grouped.log
    assert set(groups(spark, "analytics.places_by_zip_city")) == {("zip", "city")}


def test_auto_that_finds_nothing_says_so(spark, dbt, grouped):
    result = dbt("run", "--select", "places_status_flags", *GROUPED)
    assert result.success, result.error
    assert ("analytics.places_status_flags: column_groups auto: no model that reads it groups, deduplicates or joins"
            " on two or more of its columns together; no column group collected") in result.log
    assert groups(spark, "analytics.places_status_flags") == {}


def test_estimates_use_the_groups_of_their_inputs(spark, dbt, grouped):
    grouped = GROUPED
    found = groups(spark, "analytics.places")
    models = ["places_by_zip_city", "places_status_flags"]
    compiled = dbt("compile", "--select", *models, *grouped)
    assert compiled.success, compiled.error
    result = dbt("run-operation", "estimate_statistics", "--args", json.dumps({"select": models}), *grouped)
    assert result.success, result.error
    estimated = {(r["table_name"], r["column_name"]): r for r in rows(spark, """
        select * from analytics_stats.column_statistics_estimated where table_schema = 'analytics'""")}
    columns = column_stats(spark, "analytics.places")
    for model, keys in (("places_by_zip_city", ("zip", "city")), ("places_status_flags", ("status", "flag"))):
        actual = spark.sql(f"select count(*) from (select distinct {', '.join(keys)} from analytics.places)").collect()[0][0]
        key = estimated[(model, keys[0])]  # a grouping key: as accurate as the rows' estimate
        assert max(key["row_count"] / actual, actual / key["row_count"]) <= 1.1, (model, key["row_count"], actual)
        assert key["accuracy"] == "accurate"
    # without the group, independence: the zip codes' 2,000 times the cities' 100, capped by the rows
    assert columns["zip"]["distinct_count"] * columns["city"]["distinct_count"] >= 10 * found[("zip", "city")]["distinct_count"]

    # the run's report and the docs' document show them
    report = analyze(dbt, relation="analytics.places", columns="all")
    assert report.success, report.error
    assert "column group (zip, city): distinct " in report.log
    path = PROJECT.parent / ".spark" / "column_groups_docs.json"
    documented = dbt("run-operation", "docs_statistics", "--args", json.dumps({"path": str(path)}))
    assert documented.success, documented.error
    document = json.loads(path.read_text())
    assert {tuple(g["column_names"]) for g in document["column_groups"] if g["table_name"] == "places"} == set(found)
    assert not [c for c in document["columns"] if c["column_name"].startswith("[")]


def test_export_and_import_carry_the_groups(spark, dbt, places, tmp_path):
    result = analyze(dbt, relation=FLAT, columns="all", column_groups=[["zip", "city"], ["status", "flag"]])
    assert result.success, result.error
    path = tmp_path / "statistics.json"
    exported = dbt("run-operation", "export_statistics", "--args", json.dumps({"tables": [FLAT], "path": str(path)}))
    assert exported.success, exported.error
    # the same document imported for a copy of the table (its rows renamed to the copy)
    document = json.loads(path.read_text())
    for entry in document["tables"]:
        entry["table"] = "places_copy"
        for kind_rows in entry["rows"].values():
            for row in kind_rows:
                row["table_name"] = "places_copy"
    path.write_text(json.dumps(document))
    spark.sql("drop table if exists analytics.places_copy")
    spark.sql(f"create table analytics.places_copy using parquet as select * from {FLAT}")
    imported = dbt("run-operation", "import_statistics", "--args", json.dumps({"path": str(path)}))
    assert imported.success, imported.error
    assert groups(spark, "analytics.places_copy") == {
        columns: {**row, "table_name": "places_copy", "run_id": groups(spark, "analytics.places_copy")[columns]["run_id"],
                  "state_run_id": groups(spark, "analytics.places_copy")[columns]["state_run_id"],
                  "collected_at": groups(spark, "analytics.places_copy")[columns]["collected_at"]}
        for columns, row in groups(spark, FLAT).items()}
    # and the imported states merge: a later run of a column keeps the groups
    later = analyze(dbt, relation="analytics.places_copy", columns=["amount"])
    assert later.success, later.error
    assert set(groups(spark, "analytics.places_copy")) == {("zip", "city"), ("status", "flag")}


def test_a_sampled_run_scales_a_group_as_a_column(spark, dbt, places):
    # a 30% sample sees most zip codes once or twice: the sample's own count would be far short
    result = analyze(dbt, relation=FLAT, columns="all", sample={"percent": 30}, column_groups=[["zip", "city"]],
                     full=True)
    assert result.success, result.error
    distinct, _ = exact(spark, FLAT, ("zip", "city"))
    found = groups(spark, FLAT)[("zip", "city")]
    assert found["sampled"]
    assert abs(found["distinct_count"] - distinct) <= 0.15 * distinct, (found["distinct_count"], distinct)
    assert abs(found["distinct_count"] - column_stats(spark, FLAT)["zip"]["distinct_count"]) <= 0.05 * distinct


def test_the_post_hook_takes_explicit_groups_from_the_var(spark, dbt, grouped):
    result = dbt("run", "--select", "places_status_flags",
                 "--vars", json.dumps({"column_groups": True, "dbt_analyze_column_groups": [["flag", "status"]]}))
    assert result.success, result.error
    assert set(groups(spark, "analytics.places_status_flags")) == {("status", "flag")}
