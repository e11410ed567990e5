"""Column groups: how close their stored distinct counts are, what they do for the estimates of
the GROUP BYs over them, and what each costs a full run.

    make bench-groups                                  # TPC-H lineitem and orders at SF 1, and places
    python bench/column_groups.py --tpch-sf 1 --rounds 3

Tables: TPC-H lineitem and orders (tpchgen-cli) and a synthetic `places` of 1,000,000 rows whose
zip code determines its city and whose status determines its flag. Per group: the exact distinct
combinations, the stored count (its error), and the product of its columns' distinct counts
(what independence assumes); per `GROUP BY` over the group, estimate_statistics' row estimate
with and without the group, as q-errors. Cost: full runs of lineitem with none, one and two
groups, interleaved in one warm process (medians after one round not counted). Results:
bench/out/column_groups.json, and the sections of ESTIMATION.md and BENCHMARKS.md between their
`column_groups` markers.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import math
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

import sys  # noqa: E402

sys.path.insert(0, str(ROOT / "integration_tests" / "tests"))
sys.path.insert(0, str(ROOT / "bench"))
sys.path.insert(0, str(ROOT / "python" / "src"))

import datasets  # noqa: E402
from conftest import rows, run_dbt  # noqa: E402
from sampled_sketches import interleaved  # noqa: E402

from dbt_analyze.estimate import estimate_query  # noqa: E402
from dbt_analyze.function_rules import FunctionRules  # noqa: E402
from dbt_analyze.relations import RelationStats  # noqa: E402

PLACES = {
    "place_id": "id",
    "zip": "if(id % 101 = 0, null, concat('z', cast(id % 20000 as string)))",
    "city": "concat('city', cast(id % 20000 % 500 as string))",
    "status": "concat('s', cast(id % 7 as string))",
    "flag": "id % 7 < 3",
    "amount": "cast(rand(21) * 1000 as int)",
}
GROUPS = {
    "analytics.tpch_lineitem": [["l_partkey", "l_suppkey"], ["l_orderkey", "l_linenumber"],
                                ["l_returnflag", "l_linestatus"], ["l_shipmode", "l_shipinstruct"]],
    "analytics.tpch_orders": [["o_custkey", "o_orderstatus"], ["o_orderdate", "o_orderpriority"]],
    "analytics.cg_places": [["zip", "city"], ["status", "flag"]],
}
COST_GROUPS = [["l_partkey", "l_suppkey"], ["l_orderkey", "l_linenumber"]]


def q_error(estimate: float, actual: float) -> float:
    estimate, actual = max(float(estimate), 1.0), max(float(actual), 1.0)
    return max(estimate / actual, actual / estimate)


def stored(spark, table: str) -> RelationStats:
    """The table's current statistics as estimate_statistics reads them."""
    schema, name = table.split(".")
    where = f"where table_schema = '{schema}' and table_name = '{name}' and partition_spec = ''"
    row_count = rows(spark, f"select row_count from analytics_stats.table_statistics {where}")[0]["row_count"]
    return RelationStats.from_statistics(schema, name, {
        "row_count": row_count,
        "columns": rows(spark, f"select * from analytics_stats.column_statistics {where}"),
        "column_groups": rows(spark, f"select * from analytics_stats.column_group_statistics {where}")})


def accuracy(spark, table: str, groups: list[list[str]]) -> list[dict]:
    result = run_dbt("run-operation", "analyze_table", "--args", json.dumps(
        {"relation": table, "columns": "all", "full": True, "column_groups": groups}))
    if not result.success:
        raise RuntimeError(result.error)
    relation = stored(spark, table)
    found = []
    rules = FunctionRules.load()
    for group in groups:
        keys = ", ".join(group)
        present = " and ".join(f"{column} is not null" for column in group)
        exact = spark.sql(f"select count(distinct {keys}) from {table} where {present}").collect()[0][0]
        groups_out = spark.sql(f"select count(*) from (select {keys} from {table} group by {keys})").collect()[0][0]
        kept = relation.groups[frozenset(group)][0]
        product = math.prod(relation.columns[column].distinct_count for column in group)
        sql = f"select {keys}, count(*) as n from {table} group by {keys}"
        schema, name = table.split(".")
        with_groups = estimate_query(sql, {(schema, name): relation}, rules).row_count
        without = estimate_query(sql, {(schema, name): dataclasses.replace(relation, groups={})}, rules).row_count
        # a = x AND b = y on a combination that exists, drawn at random
        picked = spark.sql(f"select {keys}, count(*) as n from {table} where {present} group by {keys} "
                           f"order by rand(7) limit 1").collect()[0]
        where = " and ".join(f"{column} = {literal(picked[column])}" for column in group)
        equal = f"select * from {table} where {where}"
        eq_with = estimate_query(equal, {(schema, name): relation}, rules).row_count
        eq_without = estimate_query(equal, {(schema, name): dataclasses.replace(relation, groups={})}, rules).row_count
        found.append({"table": table, "group": group, "exact": exact, "stored": kept,
                      "error": abs(kept - exact) / max(exact, 1), "product": product, "group_by_rows": groups_out,
                      "q_with": q_error(with_groups, groups_out), "q_without": q_error(without, groups_out),
                      "equality_rows": picked["n"], "q_equality_with": q_error(eq_with, picked["n"]),
                      "q_equality_without": q_error(eq_without, picked["n"])})
        print(f"[{time.strftime('%H:%M:%S')}] {found[-1]}", flush=True)
    return found


def literal(value) -> str:
    """A value as a Spark SQL literal."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return "'" + value.replace("'", "''") + "'"
    if hasattr(value, "isoformat"):
        return f"date'{value.isoformat()}'"
    return str(value)


def cost(table: str, rounds: int) -> dict:
    steps = [{"name": f"{count} group(s)", "analyze": {"relation": table, "columns": "all", "full": True,
                                                      "column_groups": COST_GROUPS[:count]}}
             for count in range(len(COST_GROUPS) + 1)]
    timed = interleaved(steps, rounds, {})
    base = timed["0 group(s)"]
    return {name: {"seconds": seconds, "added_per_group": (seconds / base - 1) / max(int(name[0]), 1)}
            for name, seconds in timed.items()}


def estimation_markdown(report: dict) -> str:
    lines = ["<!-- column_groups:start -->",
             f"## Column groups (`{report['command']}`, {report['date']})", "",
             "Per group: the exact distinct combinations (rows where every column has a value), the stored "
             "count and its error, the product of the columns' distinct counts (what independence assumes), "
             "and the q-errors of `estimate_statistics`' rows for `GROUP BY` over the group and for equalities "
             "on all its columns (a combination that exists, drawn at random), with and without the group.", "",
             "| table | group | exact | stored | error | product of NDVs | GROUP BY rows | q-error with | without "
             "| `a = x and b = y`: rows | q-error with | without |",
             "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for found in report["accuracy"]:
        lines.append(f"| {found['table'].split('.')[1]} | {', '.join(found['group'])} | {found['exact']:,} | "
                     f"{found['stored']:,} | {100 * found['error']:.2f}% | {found['product']:,.0f} | "
                     f"{found['group_by_rows']:,} | {found['q_with']:.3f} | {found['q_without']:.2f} | "
                     f"{found['equality_rows']:,} | {found['q_equality_with']:.2f} | {found['q_equality_without']:.2f} |")
    off = [f for f in report["accuracy"] if f["q_without"] >= 10]
    with_off = sorted(f["q_with"] for f in off)
    median = with_off[len(with_off) // 2] if with_off else None
    lines += ["", f"Where independence is off by 10x or more ({len(off)} group{'' if len(off) == 1 else 's'}), "
              f"the median q-error with the "
              f"group is {median:.3f}." if median else "No group here has independence off by 10x or more.",
              "", "<!-- column_groups:end -->"]
    return "\n".join(lines)


def cost_markdown(report: dict) -> str:
    lines = ["<!-- column_groups:start -->",
             f"## What a column group costs (`{report['command']}`, {report['date']})", "",
             f"A full run of TPC-H lineitem ({report['lineitem_rows']:,} rows, every column, warm, medians "
             f"of {report['rounds']} interleaved rounds) with none, one and two column groups "
             f"({'; '.join(', '.join(g) for g in COST_GROUPS)}):", "",
             "| groups | run (s) | added per group |", "|---|---:|---:|"]
    for name, found in report["cost"].items():
        added = "" if name.startswith("0") else f"{100 * found['added_per_group']:.1f}%"
        lines.append(f"| {name} | {found['seconds']:.2f} | {added} |")
    lines += ["", "<!-- column_groups:end -->"]
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tpch-sf", type=float, default=1.0)
    parser.add_argument("--places-rows", type=int, default=1_000_000)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--out", type=Path, default=ROOT / "bench" / "out")
    options = parser.parse_args()
    spark = datasets.bench_session(options.out)
    spark.sql("create database if not exists analytics")
    datasets.create_tpch(spark, options.tpch_sf, options.out / "tpch")
    datasets.create(spark, "cg_places", PLACES, options.places_rows)
    report = {"date": time.strftime("%Y-%m-%d"), "rounds": options.rounds,
              "command": f"python bench/column_groups.py --tpch-sf {options.tpch_sf:g} --rounds {options.rounds}",
              "lineitem_rows": spark.table("analytics.tpch_lineitem").count(),
              "accuracy": [found for table, groups in GROUPS.items() for found in accuracy(spark, table, groups)],
              "cost": cost("analytics.tpch_lineitem", options.rounds)}
    datasets.write_section("column_groups", estimation_markdown(report), ROOT / "ESTIMATION.md")
    datasets.write_report(options.out, "column_groups", report, cost_markdown(report))


if __name__ == "__main__":
    main()
