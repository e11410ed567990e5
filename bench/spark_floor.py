"""Spark's floor under a statistics run, with pyspark alone: no dbt, no dbt_analyze.

    make bench-floor
    python bench/spark_floor.py --every-row --lineitem bench/out/tpch/lineitem.parquet   # #79's floor

A run that keeps mergeable statistics in a table, safe from kills and concurrent runs, sends at
least these statements, whatever its design:
- describe: the table's columns (DESCRIBE TABLE EXTENDED);
- write: a mark that the run started, before its scan (a killed run stays visible as never
  finished: test_kill, test_faults), at the least an INSERT of one VALUES row into a parquet table;
- read: the stored state, before the scan (what changed since, what to skip), at the least a
  SELECT of one row of a small parquet table;
- scan + write: one aggregate of every column INSERTed into a parquet table in the same
  statement. `basic`: Spark's own statistic set (count, nulls, min and max but not of strings,
  string lengths) with a mergeable HLL sketch in place of Spark's HLL++; `full` adds mean and
  variance, string min/max, a KLL and a top-k sketch, at the sizes a run uses (KLL k, top-k items).
Their sum, the least run, is timed beside Spark's own ANALYZE ... FOR ALL COLUMNS of the same
table (with histograms too, for `full`), which writes to the metastore and nothing else.
The sketches alone (every column's HLL, KLL and top-k, nothing else) are the floor of any scan
that keeps them. And the incremental figure at the floor: the least run after one new partition
of 31 against the least full run of the same table (measure_incremental). With --every-row: what
must see every row when the distribution sketches see a sample (measure_every_row). Hive metastore (Derby)
as dbt's session has it; one warm session; medians of interleaved rounds after warm-up rounds.
Tables: the benchmark's mixed 8-column shape at 1,000 and 2,000,000 rows and in 31 partitions of
100,000 rows, and bench/cost_project's orders model.
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


KLL_K, TOP_K_ITEMS, HLL_LG_K = 16000, 2048, 14  # a run's defaults (macros/_config.sql)


def sketch_input(column: str, data_type: str) -> tuple[str, str | None, str | None]:
    """The column as a run's sketches take it: (HLL input, top-k input or None, KLL input or None)."""
    if data_type in ("bigint", "int"):
        return f"cast({column} as bigint)", column, f"cast({column} as double)"
    if data_type == "double" or data_type.startswith("decimal"):
        return f"xxhash64({column})", column, f"cast({column} as double)"
    if data_type == "date":
        return f"cast(unix_date({column}) as bigint)", column, f"cast(unix_date({column}) as double)"
    if data_type == "timestamp":
        return f"unix_micros({column})", column, f"cast(unix_micros({column}) as double)"
    if data_type == "boolean":  # its top values are its true/false counts
        return f"cast({column} as int)", None, None
    return column, column, None


def sketch_measures(column: str, data_type: str, kinds: tuple[str, ...], fed=lambda item: item) -> list[str]:
    """The column's sketches of `kinds`, each fed `fed(its input)`."""
    hll_item, top_item, kll_item = sketch_input(column, data_type)
    measures = [f"hll_sketch_agg({fed(hll_item)}, {HLL_LG_K})"] if "hll" in kinds else []
    if "kll" in kinds and kll_item:
        measures.append(f"kll_sketch_agg_double({fed(kll_item)}, {KLL_K})")
    if "top_k" in kinds and top_item:
        measures.append(f"approx_top_k_accumulate({fed(top_item)}, {TOP_K_ITEMS})")
    return measures


def measures(fields, sketches: str, kinds: tuple[str, ...] | None = None) -> list[str]:
    """The aggregates a run needs of a table's `fields`: exact aggregates and sketches of every column
    (the sketches of `kinds`, by default HLL alone for `basic` and all three for `full`)."""
    kinds = kinds if kinds is not None else ("hll", "kll", "top_k") if sketches == "full" else ("hll",)
    result = ["count(1)"]
    for field in fields:
        column, data_type = f"`{field.name}`", field.dataType.simpleString()
        result.append(f"count({column})")
        if data_type != "string" or sketches == "full":
            result += [f"min({column})", f"max({column})"]
        if data_type == "string":
            result += [f"sum(length({column}))", f"max(length({column}))"]
        if sketches == "full" and (data_type in ("bigint", "int", "double") or data_type.startswith("decimal")):
            result += [f"sum(cast({column} as double))", f"var_pop(cast({column} as double))"]
        result += sketch_measures(column, data_type, kinds)
    return result


def aggregate_sql(spark, table: str, sketches: str, kinds: tuple[str, ...] | None = None) -> str:
    """The one aggregate a run needs of `table`."""
    return ("select " + ", ".join(f"{m} as m{i}" for i, m in enumerate(measures(spark.table(table).schema.fields, sketches, kinds)))
            + f" from {table}")


def sampled_aggregate_sql(spark, table: str, rate: float, by_filter: bool = False) -> str:
    """A full run's aggregate of `table` with its KLL and top-k sketches fed a `rate` Bernoulli sample:
    a flag in the scan's projection (Spark refuses a nondeterministic FILTER), and the sketches' input
    NULL outside the sample, or, `by_filter`, the sketches' aggregates filtered on it."""
    fields = spark.table(table).schema.fields
    fed = (lambda item: item) if by_filter else (lambda item: f"if(sampled, {item}, null)")
    sampled = [m + (" filter (where sampled)" if by_filter else "") for field in fields
               for m in sketch_measures(f"`{field.name}`", field.dataType.simpleString(), ("kll", "top_k"), fed)]
    return ("select " + ", ".join(f"{m} as m{i}" for i, m in enumerate(measures(fields, "full", ("hll",)) + sampled))
            + f" from (select *, rand(7) < {rate} as sampled from {table})")


def sketches_sql(spark, table: str, kinds: tuple[str, ...]) -> str:
    """Every column's sketches of `kinds` and nothing else."""
    sketches = [m for field in spark.table(table).schema.fields
                for m in sketch_measures(f"`{field.name}`", field.dataType.simpleString(), kinds)]
    return "select " + ", ".join(f"{m} as m{i}" for i, m in enumerate(sketches)) + f" from {table}"


def analyze_with_histograms(spark, table: str) -> None:
    spark.conf.set("spark.sql.statistics.histogram.enabled", "true")
    try:
        spark.sql(f"analyze table {table} compute statistics for all columns").collect()
    finally:
        spark.conf.set("spark.sql.statistics.histogram.enabled", "false")


def timed(spark, sql) -> float:
    started = time.perf_counter()
    sql() if callable(sql) else spark.sql(sql).collect()
    return time.perf_counter() - started


def medians(spark, steps: dict, rounds: int, warmup: int) -> dict[str, float]:
    """Each step's median time over `rounds` interleaved rounds, after `warmup` rounds."""
    seconds = {step: [] for step in steps}
    for round_ in range(warmup + rounds):
        for step, sql in steps.items():
            took = timed(spark, sql)
            if round_ >= warmup:
                seconds[step].append(took)
    return {step: statistics.median(runs) for step, runs in seconds.items()}


def least_run_statements(spark, table: str, sketches: str) -> dict[str, str]:
    """The least run's statements of `table` ({step: SQL}), after creating the tables they write:
    describe, write (the started mark), read (the stored state) and scan_and_write."""
    aggregate = aggregate_sql(spark, table, sketches)
    spark.sql(f"drop table if exists {table}_sink")
    spark.sql(f"create table {table}_sink using parquet as {aggregate} limit 0")
    return {**fixed_statements(spark, table, f"{table}_one"), "scan_and_write": f"insert into {table}_sink {aggregate}"}


def fixed_statements(spark, table: str, marks: str) -> dict[str, str]:
    """What every run sends besides its scan ({step: SQL}): describe `table`, write a started mark
    into `marks` (a one-row parquet table, created here) and read it back."""
    spark.sql(f"drop table if exists {marks}")
    spark.sql(f"create table {marks} (run_id string, rows bigint) using parquet")
    return {"describe": f"describe table extended {table}",
            "write": f"insert into {marks} values ('run', 1)",
            "read": f"select * from {marks} where run_id = 'run' limit 1"}


def create_table(spark, name: str, columns: dict[str, str], rows: int) -> str:
    """`floor.<name>`, made anew: `rows` rows of `columns` (name: expression of `id`)."""
    table = f"floor.{name}"
    spark.sql(f"drop table if exists {table}")
    spark.sql(f"create table {table} using parquet as select {', '.join(f'{e} as {c}' for c, e in columns.items())} from range({rows})")
    return table


def measure(spark, name: str, columns: dict[str, str], rows: int, sketches: str, rounds: int, warmup: int) -> dict:
    table = create_table(spark, name, columns, rows)
    least = least_run_statements(spark, table, sketches)
    steps = {"spark_analyze": f"analyze table {table} compute statistics for all columns",
             "scan": aggregate_sql(spark, table, sketches), **least,
             "hll_alone": sketches_sql(spark, table, ("hll",))}
    if sketches == "full":
        steps["spark_analyze_histograms"] = lambda: analyze_with_histograms(spark, table)
        steps["sketches_alone"] = sketches_sql(spark, table, ("hll", "kll", "top_k"))
    result = medians(spark, steps, rounds, warmup)
    result["least_run"] = sum(result[step] for step in least)
    result.update({"rows": rows, "columns": len(columns), "sketches": sketches})
    return result


MERGES = {"count": "sum", "min": "min", "max": "max", "sum": "sum", "var_pop": "sum", "hll_sketch_agg": "hll_union_agg",
          "kll_sketch_agg_double": "kll_merge_agg_double", "approx_top_k_accumulate": "approx_top_k_combine"}


def incremental_statements(spark, table: str, last_partition: int) -> dict[str, list[str]]:
    """The incremental figure at the floor, for `table` partitioned by an int `part`: the least
    full run's statements and the least run's after one new partition ({"full": [...],
    "incremental": [...]}), after creating the tables they write and read. Full: every partition's
    state and the table's merged from them, in one INSERT (grouping sets). Incremental: the new
    partition's state and the table's, merged from it and the stored table state (one row), in one
    INSERT; `last_partition` stands for the new one, so every round sends the same statements.
    Both also describe, write a started mark and read. The floor's merges are plain (no pooled
    variance, no typed extremes)."""
    fields = [f for f in spark.table(table).schema.fields if f.name != "part"]
    state = measures(fields, "full")
    merged = ", ".join(f"{MERGES[m.split('(')[0]]}(m{i}) as m{i}" for i, m in enumerate(state))
    state_sql = ", ".join(f"{m} as m{i}" for i, m in enumerate(state))

    def merge_sql(where: str, stored: str) -> str:
        return (f"select part, {merged} from (select part, {state_sql} from {table} {where} group by part {stored}) "
                f"group by grouping sets ((part), ())")
    for name in ("sink", "merged"):
        spark.sql(f"drop table if exists {table}_floor_{name}")
    spark.sql(f"create table {table}_floor_sink using parquet as {merge_sql('where false', '')}")
    spark.sql(f"create table {table}_floor_merged using parquet as select * from ({merge_sql('', '')}) where part is null")
    fixed = list(fixed_statements(spark, table, f"{table}_floor_one").values())
    return {"full": fixed + [f"insert into {table}_floor_sink {merge_sql('', '')}"],
            "incremental": fixed + [f"insert into {table}_floor_sink "
                                    f"{merge_sql(f'where part = {last_partition}', f'union all select * from {table}_floor_merged')}"],
            "new_partition_aggregate": [f"select part, {state_sql} from {table} where part = {last_partition} group by part"]}


def measure_incremental(spark, partitions: int, rows: int, rounds: int, warmup: int) -> dict:
    """The least run after one new partition of `partitions` (`rows` each) against the least full
    run of the same table (incremental_statements)."""
    table = "floor.parts"
    spark.sql(f"drop table if exists {table}")
    spark.sql(f"create table {table} using parquet partitioned by (part) as select "
              f"{', '.join(f'{e} as {c}' for c, e in MIXED.items())}, cast(id div {rows} as int) as part "
              f"from range({rows * partitions})")
    statements = incremental_statements(spark, table, partitions - 1)
    result = medians(spark, {step: (lambda sqls=sqls: [spark.sql(sql).collect() for sql in sqls])
                             for step, sqls in statements.items()}, rounds, warmup)
    result.update({"least_full_run": result.pop("full"), "least_incremental_run": result.pop("incremental"),
                   "partitions": partitions, "rows": rows})
    return result


def measure_every_row(spark, table: str, rounds: int, warmup: int, sample_rows: tuple[int, ...] = ()) -> dict:
    """What #79 requires to see every row, against Spark's ANALYZE with histograms of `table`: the
    exact measures and HLL in one aggregate, each alone (the exact measures in generated code), and
    the full aggregate with its KLL and top-k sketches fed a 10% and a 2% sample (their input NULL
    outside it, as a run feeds them) and a 10% one by FILTER.
    For each of `sample_rows`, the sketches' least cost if the rows outside the sample cost nothing
    (`skip_free_<n>`): the KLL and top-k sketches over a table that holds only a Bernoulli sample of
    about n rows, less a bare read of that table, plus the every-row aggregate."""
    steps = {"spark_analyze_histograms": lambda: analyze_with_histograms(spark, table),
             "every_row": aggregate_sql(spark, table, "full", ("hll",)),
             "exact_alone": aggregate_sql(spark, table, "full", ()),
             "hll_alone": sketches_sql(spark, table, ("hll",)),
             "sampled_10": sampled_aggregate_sql(spark, table, 0.1),
             "sampled_2": sampled_aggregate_sql(spark, table, 0.02),
             "sampled_10_by_filter": sampled_aggregate_sql(spark, table, 0.1, by_filter=True)}
    rows = spark.table(table).count()
    for n in sample_rows:
        sample = f"{table}_sample_{n}"
        spark.sql(f"drop table if exists {sample}")
        spark.sql(f"create table {sample} using parquet as select * from {table} where rand(7) < {min(1.0, n / rows)}")
        steps[f"sample_sketches_{n}"] = sketches_sql(spark, sample, ("kll", "top_k"))
        steps[f"sample_read_{n}"] = lambda sample=sample: spark.table(sample).write.format("noop").mode("overwrite").save()
    result = medians(spark, steps, rounds, warmup)
    for n in sample_rows:
        result[f"skip_free_{n}"] = result["every_row"] + result[f"sample_sketches_{n}"] - result[f"sample_read_{n}"]
    result["rows"] = rows
    return result


def measure_all(spark, options) -> dict:
    if options.every_row:
        tables = {"mixed 2M": create_table(spark, "mixed_every_row", MIXED, 2_000_000)}
        if options.lineitem:
            spark.sql("drop table if exists floor.lineitem")
            spark.sql(f"create table floor.lineitem using parquet as select * from parquet.`{options.lineitem}`")
            tables["lineitem"] = "floor.lineitem"
        return {name: measure_every_row(spark, table, options.rounds, options.warmup, tuple(options.sample_rows))
                for name, table in tables.items()}
    return {
        "model, full": measure(spark, "model", MODEL, 2000, "full", options.rounds, options.warmup),
        "small, full": measure(spark, "small", MIXED, 1000, "full", options.rounds, options.warmup),
        "mixed 2M, basic": measure(spark, "mixed", MIXED, 2_000_000, "basic", options.rounds, options.warmup),
        "mixed 2M, full": measure(spark, "mixed_full", MIXED, 2_000_000, "full", options.rounds, options.warmup),
        "incremental": measure_incremental(spark, 31, 100_000, options.rounds, options.warmup),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--warmup", type=int, default=3)
    parser.add_argument("--every-row", action="store_true", help="#79: what must see every row, against ANALYZE with histograms")
    parser.add_argument("--lineitem", type=Path, help="with --every-row: TPC-H lineitem as parquet (tpchgen-cli)")
    parser.add_argument("--sample-rows", type=int, nargs="*", default=[100_000, 750_000, 1_000_000],
                        help="with --every-row: sample sizes whose sketches' least cost to time (skip_free_<n>)")
    parser.add_argument("--out", type=Path, default=Path(__file__).resolve().parent / "out")
    options = parser.parse_args()
    from pyspark.sql import SparkSession

    home = Path(tempfile.mkdtemp(prefix="spark_floor_"))
    spark = (SparkSession.builder.master("local[2]").config("spark.ui.enabled", "false").config("spark.ui.showConsoleProgress", "false")
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
    if options.every_row:
        (options.out / "spark_floor_every_row.json").write_text(json.dumps(report, indent=1))
        print_every_row(report)
        return
    (options.out / "spark_floor.json").write_text(json.dumps(report, indent=1))
    print("| table | Spark's ANALYZE | scan | scan + write | describe | write | read | least run | least run / ANALYZE | HLL alone |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for name, r in report.items():
        if "spark_analyze" not in r:
            continue
        print(f"| {name} ({r['rows']:,} rows x {r['columns']}) | {r['spark_analyze']:.3f} | {r['scan']:.3f} | {r['scan_and_write']:.3f} "
              f"| {r['describe']:.3f} | {r['write']:.3f} | {r['read']:.3f} | {r['least_run']:.3f} "
              f"| {r['least_run'] / r['spark_analyze']:.2f}x | {r['hll_alone']:.3f} |")
    print()
    print("| table | Spark's ANALYZE with histograms | the sketches alone | / it | least run | / it |")
    print("|---|---:|---:|---:|---:|---:|")
    for name, r in report.items():
        if "spark_analyze_histograms" in r:
            with_histograms = r["spark_analyze_histograms"]
            print(f"| {name} | {with_histograms:.3f} | {r['sketches_alone']:.3f} | {r['sketches_alone'] / with_histograms:.2f}x "
                  f"| {r['least_run']:.3f} | {r['least_run'] / with_histograms:.2f}x |")
    r = report["incremental"]
    print()
    print("| table | least full run | least run after one new partition | / full | the new partition's aggregate alone |")
    print("|---|---:|---:|---:|---:|")
    print(f"| {r['partitions']} partitions of {r['rows']:,} rows | {r['least_full_run']:.3f} | {r['least_incremental_run']:.3f} "
          f"| {r['least_incremental_run'] / r['least_full_run']:.3f}x | {r['new_partition_aggregate']:.3f} |")


def print_every_row(report: dict) -> None:
    steps = ["every_row", "exact_alone", "hll_alone", "sampled_10", "sampled_2", "sampled_10_by_filter"]
    steps += sorted((step for step in next(iter(report.values())) if step.startswith("skip_free_")), key=lambda s: int(s[10:]))
    print("| table | Spark's ANALYZE with histograms | " + " | ".join(steps) + " |")
    print("|---|---:|" + "---:|" * len(steps))
    for name, r in report.items():
        base = r["spark_analyze_histograms"]
        print(f"| {name} ({r['rows']:,} rows) | {base:.2f} s | "
              + " | ".join(f"{r[s]:.2f} s ({r[s] / base:.2f}x)" for s in steps) + " |")


if __name__ == "__main__":
    main()
