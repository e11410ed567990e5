"""Spark's floor under a statistics run (issue #40), with pyspark alone: no dbt, no dbt_analyze.

    make bench-floor

A run that keeps mergeable statistics in a table, and keeps what #40 says must keep working, sends
at least these statements, whatever its design:
- describe: the table's columns (DESCRIBE TABLE EXTENDED);
- write: a mark that the run started, before its scan (a killed run stays visible as never
  finished: test_kill, test_faults), at the least an INSERT of one VALUES row into a parquet table;
- read: the stored state, before the scan (what changed since, what to skip), at the least a
  SELECT of one row of a small parquet table;
- scan + write: one aggregate of every column INSERTed into a parquet table in the same
  statement. `basic`: count, min and max (not of strings), lengths of strings, sum and variance
  of numbers, an HLL sketch; `full` adds string min/max, a KLL and a top-k sketch.
Their sum, the least run, is timed beside Spark's own ANALYZE ... FOR ALL COLUMNS of the same
table, which writes to the metastore and nothing else. Hive metastore (Derby) as dbt's session
has it; one warm session; medians of interleaved rounds after warm-up rounds. Tables: the
benchmark's mixed 8-column shape at 1,000 and 2,000,000 rows, and bench/cost_project's orders model.
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import tempfile
import time
from pathlib import Path

from datasets import MIXED

MODEL = {  # bench/cost_project's orders model
    "order_id": "id",
    "customer_id": "cast(id % 500 as bigint)",
    "store_id": "cast(id % 20 as bigint)",
    "ordered_on": "date_add(date'2024-01-01', cast(id % 365 as int))",
    "status": "element_at(array('placed', 'shipped', 'returned'), cast(id % 3 as int) + 1)",
}


def sketch_input(column: str, data_type: str) -> tuple[str, str, str | None]:
    """The column as the sketches take it: (HLL input, top-k input, KLL aggregate or None)."""
    if data_type in ("bigint", "int"):
        return f"cast({column} as bigint)", column, f"kll_sketch_agg_bigint(cast({column} as bigint))"
    if data_type == "double" or data_type.startswith("decimal"):
        return f"xxhash64({column})", column, f"kll_sketch_agg_double(cast({column} as double))"
    if data_type == "date":
        return f"cast(unix_date({column}) as bigint)", column, f"kll_sketch_agg_bigint(cast(unix_date({column}) as bigint))"
    if data_type == "timestamp":
        return f"unix_micros({column})", column, f"kll_sketch_agg_bigint(unix_micros({column}))"
    if data_type == "boolean":
        return f"cast({column} as int)", f"cast({column} as int)", None
    return column, column, None


def aggregate_sql(spark, table: str, sketches: str) -> str:
    """The one aggregate a run needs of `table`: exact aggregates and sketches of every column."""
    measures = ["count(1)"]
    for field in spark.table(table).schema.fields:
        column, data_type = f"`{field.name}`", field.dataType.simpleString()
        hll_item, top_item, kll = sketch_input(column, data_type)
        measures += [f"count({column})", f"hll_sketch_agg({hll_item}, 14)"]
        if data_type != "string" or sketches == "full":  # basic: Spark's statistic set, no string min/max
            measures += [f"cast(min({column}) as string)", f"cast(max({column}) as string)"]
        if data_type == "string":
            measures += [f"sum(length({column}))", f"max(length({column}))"]
        if data_type in ("bigint", "int", "double") or data_type.startswith("decimal"):
            measures += [f"sum(cast({column} as double))", f"var_pop(cast({column} as double))"]
        if sketches == "full":
            measures += [f"approx_top_k_accumulate({top_item}, 256)"] + ([kll] if kll else [])
    return "select " + ", ".join(f"{m} as m{i}" for i, m in enumerate(measures)) + f" from {table}"


def timed(spark, sql: str) -> float:
    started = time.perf_counter()
    spark.sql(sql).collect()
    return time.perf_counter() - started


def measure(spark, name: str, columns: dict[str, str], rows: int, sketches: str, rounds: int, warmup: int) -> dict:
    table = f"floor.{name}"
    spark.sql(f"drop table if exists {table}")
    spark.sql(f"create table {table} using parquet as select {', '.join(f'{e} as {c}' for c, e in columns.items())} from range({rows})")
    aggregate = aggregate_sql(spark, table, sketches)
    spark.sql(f"drop table if exists {table}_sink")
    spark.sql(f"create table {table}_sink using parquet as {aggregate} limit 0")
    spark.sql(f"drop table if exists {table}_one")
    spark.sql(f"create table {table}_one (run_id string, rows bigint) using parquet")
    steps = {
        "spark_analyze": f"analyze table {table} compute statistics for all columns",
        "scan": aggregate,
        "scan_and_write": f"insert into {table}_sink {aggregate}",
        "describe": f"describe table extended {table}",
        "write": f"insert into {table}_one values ('run', 1)",
        "read": f"select * from {table}_one where run_id = 'run' limit 1",
    }
    seconds = {step: [] for step in steps}
    for round_ in range(warmup + rounds):
        for step, sql in steps.items():
            took = timed(spark, sql)
            if round_ >= warmup:
                seconds[step].append(took)
    result = {step: statistics.median(runs) for step, runs in seconds.items()}
    result["least_run"] = result["describe"] + result["write"] + result["read"] + result["scan_and_write"]
    result.update({"rows": rows, "columns": len(columns), "sketches": sketches})
    return result


def measure_all(spark, options) -> dict:
    return {
        "model, full": measure(spark, "model", MODEL, 2000, "full", options.rounds, options.warmup),
        "small, full": measure(spark, "small", MIXED, 1000, "full", options.rounds, options.warmup),
        "mixed 2M, basic": measure(spark, "mixed", MIXED, 2_000_000, "basic", options.rounds, options.warmup),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--warmup", type=int, default=3)
    parser.add_argument("--out", type=Path, default=Path(__file__).resolve().parent / "out")
    options = parser.parse_args()
    from pyspark.sql import SparkSession

    home = Path(tempfile.mkdtemp(prefix="spark_floor_"))
    spark = (SparkSession.builder.master("local[2]").config("spark.ui.enabled", "false")
             .config("spark.sql.shuffle.partitions", "4").config("spark.sql.session.timeZone", "UTC")
             .config("spark.driver.memory", "4g").config("spark.sql.warehouse.dir", str(home / "warehouse"))
             .config("spark.hadoop.javax.jdo.option.ConnectionURL", f"jdbc:derby:;databaseName={home}/metastore_db;create=true")
             .config("spark.driver.extraJavaOptions", f"-Dderby.system.home={home}")
             .enableHiveSupport().getOrCreate())
    spark.sparkContext.setLogLevel("ERROR")
    spark.sql("create database if not exists floor")
    try:
        report = measure_all(spark, options)
    finally:
        spark.stop()
        shutil.rmtree(home, ignore_errors=True)
    options.out.mkdir(parents=True, exist_ok=True)
    (options.out / "spark_floor.json").write_text(json.dumps(report, indent=1))
    print("| table | Spark's ANALYZE | scan | scan + write | describe | write | read | least run | least run / ANALYZE |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    for name, r in report.items():
        print(f"| {name} ({r['rows']:,} rows x {r['columns']}) | {r['spark_analyze']:.3f} | {r['scan']:.3f} | {r['scan_and_write']:.3f} "
              f"| {r['describe']:.3f} | {r['write']:.3f} | {r['read']:.3f} | {r['least_run']:.3f} | {r['least_run'] / r['spark_analyze']:.2f}x |")

if __name__ == "__main__":
    main()
