"""Hostile identifiers and values are data: quoted wherever they reach SQL."""

import pytest
from conftest import analyze, column_stats, spark_size_bytes, table_stats

COLUMNS = ["a b", "q'uote", "back`tick", "ünïcödé", "select", 'x"y', "semi;colon--"]
TABLE = "analytics.`select`"  # a reserved word as a table name


@pytest.fixture(scope="module")
def hostile_table(spark, dbt):
    quoted = ", ".join("`" + c.replace("`", "``") + "` string" for c in COLUMNS)
    spark.sql(f"drop table if exists {TABLE}")
    spark.sql(f"create table {TABLE} ({quoted}, `p k` string) using parquet partitioned by (`p k`)")
    rows = [tuple(f"{c}-{i}" if i % 3 else None for c in COLUMNS) + ("v'1" if i % 2 else "v;2--",) for i in range(30)]
    rows.append(tuple("x" * 1_048_576 if c == "a b" else "big" for c in COLUMNS) + ("v'1",))
    schema = ", ".join("`" + c.replace("`", "``") + "` string" for c in COLUMNS + ["p k"])
    spark.createDataFrame(rows, schema).write.insertInto(TABLE)
    return rows


def test_hostile_column_names_are_analyzed(spark, dbt, hostile_table):
    result = analyze(dbt, relation="analytics.select", columns="all")
    assert result.success, result.error
    stats = column_stats(spark, "analytics.select")
    assert set(stats) == set(COLUMNS)
    for column in COLUMNS:
        assert stats[column]["null_count"] == 10
    assert stats["a b"]["max_len"] == 1_048_576  # a 1 MB string is just a long value
    assert table_stats(spark, "analytics.select")[""]["row_count"] == 31
    assert len([s for s in table_stats(spark, "analytics.select") if s]) == 2


def test_backquoted_statement_with_hostile_names(spark, dbt, hostile_table):
    statement = "ANALYZE TABLE analytics.`select` PARTITION (`p k` = 'v''1') COMPUTE STATISTICS FOR COLUMNS `back``tick`, `q'uote`"
    result = analyze(dbt, statement=statement, full=True)
    assert result.success, result.error
    assert "1 of 2 partition(s)" in result.log
    partition = [s for s in table_stats(spark, "analytics.select") if s.startswith("p%20k") or s.startswith("p k")]
    assert partition, table_stats(spark, "analytics.select").keys()


def test_a_table_whose_location_holds_glob_characters_is_listed(spark, dbt, tmp_path):
    """Spark's binaryFile source reads its path as a glob; the schema here is kept at `.../raw {1} [a]`."""
    spark.sql("drop schema if exists odd_place cascade")
    spark.sql(f"create schema odd_place location '{tmp_path / 'raw {1} [a]'}'")
    spark.sql("create table odd_place.t (v int, p int) using parquet partitioned by (p)")
    spark.sql("insert into odd_place.t values (1, 1), (2, 2), (3, 2)")
    result = analyze(dbt, relation="odd_place.t", columns="all")
    assert result.success, result.error
    spark.sql("analyze table odd_place.t compute statistics noscan")
    stats = table_stats(spark, "odd_place.t")
    assert stats[""]["size_bytes"] == spark_size_bytes(spark, "odd_place.t") > 0
    assert stats["p=2"]["row_count"] == 2 and stats["p=2"]["file_count"] >= 1
