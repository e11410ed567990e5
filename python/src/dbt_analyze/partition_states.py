"""The stored states of tables' partitions as a run's plan reads them, and each partition's status.

A run reads the current states of its tables' partitions (the macro ``_current_states_read_sql``:
a row per partition and column) and compares each partition's files with those its state was
taken from. On a table of thousands of partitions that is thousands of rows and partitions, a
loop Jinja runs at a fraction of Python's speed, so the macros hand both to these functions
(``adapter.dbt_analyze_read_states`` and ``adapter.dbt_analyze_partition_status``).

The states read's rows, by position: table_schema, table_name, partition_spec, column_name,
data_type, file_count, size_bytes, files_modified_at, sketches, collected_at, run_id, whether the
column's top-k sketch holds text items, the latest run that maps the partition, the sketches of
the merged state that run's table rows carry (null without one), the items the column's top-k
sketch tracks (null without one), and the rate its distribution sketches were fed at (null: every
row). A table's partition row has
column_name ''. A row whose partition_spec is null is the table's runs that have succeeded so
far, comma-separated, in the run_id position.

>>> rows = [("s", "t", "p=1", "", None, 1, 10, "5", "full", "2026-01-01", "r1", None, "r2", "full", None, 0.5),
...         ("s", "t", "p=1", "x", "int", None, None, None, None, None, "r1", False, "r2", "full", 2048, 0.5),
...         ("s", "t", None, None, None, None, None, None, None, None, "r1,r2", None, None, None, None, None)]
>>> read = read_states([("s", "t"), ("s", "u")], rows)
>>> read["states"][0]["p=1"]["fingerprint"], read["states"][0]["p=1"]["columns"], read["states"][1]
([1, 10, '5'], {'x': 'int'}, {})
>>> read["latest"], read["merged"], read["succeeded"], read["top_k_tracked"]
(['r2', None], ['full', None], [['r1', 'r2'], []], [{'x': 2048}, {}])
>>> listing = {"p=1": {"file_count": 1, "size_bytes": 10, "modified_at": "5"}, "p=2": {"file_count": 1, "size_bytes": 3, "modified_at": "6"}}
>>> partition_status(["p=1", "p=2"], listing, read["states"][0], {"x": "int"}, [], "full", sketch_rate=0.5)
{'p=1': 'fresh', 'p=2': 'new'}
>>> partition_status(["p=1"], listing, read["states"][0], {"x": "int"}, [], "full", top_k_tracked={"x": 8192}, sketch_rate=0.5)
{'p=1': 'stale'}
"""

from __future__ import annotations

from typing import Any, Iterable, Sequence

NO_FILES = {"file_count": 0, "size_bytes": 0, "modified_at": None}


def read_states(tables: Sequence[Sequence[str]], rows: Iterable[Sequence[Any]]) -> dict[str, list]:
    """The states read's rows (module docstring) as, per table in the order of ``tables``
    ((schema, name) pairs): ``states``, {spec: {fingerprint: [file_count, size_bytes,
    files_modified_at], columns: {name: data_type}, sketches, collected_at, run_id: the run whose
    row holds the state, text_top_values: the columns whose top-k sketch holds text items,
    top_k_tracked: {column: items its top-k sketch tracks}}};
    ``latest``, the run whose partition_runs map those states (or None); ``merged``, the sketches
    of the merged state that run's table rows carry (or None); ``succeeded``, the runs that have
    succeeded (empty when the read did not ask); ``top_k_tracked``, {column: the most items any of
    its states' top-k sketches of that column tracks}."""
    position = {(schema, name): index for index, (schema, name) in enumerate(tables)}
    states: list[dict[str, dict]] = [{} for _ in tables]
    latest: list[str | None] = [None] * len(tables)
    merged: list[str | None] = [None] * len(tables)
    succeeded: list[list[str]] = [[] for _ in tables]
    most_tracked: list[dict[str, int]] = [{} for _ in tables]
    for row in rows:
        index = position[(row[0], row[1])]
        if row[2] is None:
            succeeded[index] = [run for run in (row[10] or "").split(",") if run]
            continue
        latest[index], merged[index] = row[12], row[13]
        state = states[index].get(row[2])
        if state is None:
            state = states[index][row[2]] = {"columns": {}, "fingerprint": None, "sketches": None,
                                             "collected_at": None, "run_id": row[10], "text_top_values": [],
                                             "top_k_tracked": {}}
        if row[3] == "":
            state.update({"fingerprint": [_count(row[5]), _count(row[6]), row[7]], "sketches": row[8],
                          "collected_at": row[9], "sketch_rate": _rate(row[15] if len(row) > 15 else None)})
        else:
            state["columns"][row[3]] = row[4]
            if row[11]:
                state["text_top_values"].append(row[3])
            if row[14] is not None:
                state["top_k_tracked"][row[3]] = int(row[14])
                most_tracked[index][row[3]] = max(most_tracked[index].get(row[3], 0), int(row[14]))
    return {"states": states, "latest": latest, "merged": merged, "succeeded": succeeded, "top_k_tracked": most_tracked}


def partition_status(partitions: Iterable[str], listing: dict[str, dict], states: dict[str, dict],
                     types: dict[str, str], native_top_k: Sequence[str], sketches: str = "basic",
                     top_k_tracked: dict[str, int] | None = None, sketch_rate: float | None = None) -> dict[str, str]:
    """{spec: fresh | stale | new | dropped} for every partition of the table (``partitions``), and
    for partitions that are gone but still counted in its current statistics (``states``). Fresh:
    the partition's files (``listing``: count, sizes, newest modification) are those its state was
    taken from, the state holds the sketches asked for and every column of ``types`` with its type
    today, no column of ``native_top_k`` (whose top-k sketch takes values as they are) has a
    sketch of text items, and no column of ``types`` has a top-k sketch tracking fewer items than
    ``top_k_tracked`` gives it ({column: items}; a merge counts a value for sure only as far as its
    smallest sketch does), and, for full sketches, its distribution sketches were fed at
    ``sketch_rate`` (None: every row; sketches fed at different rates do not merge).
    A state without a fingerprint is new; a gone partition is dropped (once a
    run has merged the table without it, it is history, and the table is not stale for it again).

    >>> state = {"fingerprint": [1, 10, "5"], "columns": {"x": "int"}, "sketches": "basic", "text_top_values": ["x"]}
    >>> listing = {"p=1": {"file_count": 1, "size_bytes": 10, "modified_at": "5"}}
    >>> partition_status(["p=1"], listing, {"p=1": state, "p=0": state}, {"x": "int"}, [], "basic")
    {'p=1': 'fresh', 'p=0': 'dropped'}
    >>> partition_status(["p=1"], listing, {"p=1": state}, {"x": "int"}, [], "full")
    {'p=1': 'stale'}
    >>> partition_status(["p=1"], listing, {"p=1": state}, {"x": "bigint"}, [], "basic")
    {'p=1': 'stale'}
    >>> partition_status(["p=1"], {}, {"p=1": state}, {"x": "int"}, [], "basic")
    {'p=1': 'stale'}
    >>> partition_status(["p=1"], listing, {"p=1": dict(state, sketches="full")}, {"x": "int"}, ["x"], "full")
    {'p=1': 'stale'}
    >>> full = dict(state, sketches="full", text_top_values=[], sketch_rate=0.5)
    >>> partition_status(["p=1"], listing, {"p=1": full}, {"x": "int"}, [], "full", None, 0.5)
    {'p=1': 'fresh'}
    >>> partition_status(["p=1"], listing, {"p=1": full}, {"x": "int"}, [], "full", None, None)
    {'p=1': 'stale'}
    """
    wanted = types.items()
    native = set(native_top_k)
    status: dict[str, str] = {}
    for spec in partitions:
        state = states.get(spec)
        if state is None or state.get("fingerprint") is None:
            status[spec] = "new"
            continue
        files = listing.get(spec, NO_FILES)
        tracked = state.get("top_k_tracked", {})
        fresh = (state["fingerprint"] == [files["file_count"], files["size_bytes"], files["modified_at"]]
                 and (sketches == "basic" or (state.get("sketches") == "full"
                                              and _rate(state.get("sketch_rate")) == _rate(sketch_rate)))
                 and state["columns"].items() >= wanted
                 and not native.intersection(state.get("text_top_values", []))
                 and not any(tracked.get(name, items) < items for name, items in (top_k_tracked or {}).items()
                             if name in types))
        status[spec] = "fresh" if fresh else "stale"
    for spec in states:
        status.setdefault(spec, "dropped")
    return status


def _rate(value: Any) -> float | None:
    """A sketch rate as a float, None for every row (a rate of 1, or none stored)."""
    return None if value is None or float(value) >= 1 else float(value)


def _count(value: Any) -> int:
    """A count as the states read gives it (an int on a session, a Decimal through agate; null as 0)."""
    return int(value or 0)


# The adapter methods of this concept (registered by dbt_analyze.adapter_methods).


def dbt_analyze_read_states(adapter: Any, tables: list, rows: list) -> dict[str, list]:
    return read_states(tables, rows)


def dbt_analyze_partition_status(adapter: Any, partitions: list, listing: dict, states: dict, types: dict,
                                 native_top_k: list, sketches: str = "basic",
                                 top_k_tracked: dict | None = None, sketch_rate: float | None = None) -> dict[str, str]:
    return partition_status(partitions, listing, states, types, native_top_k, sketches, top_k_tracked, sketch_rate)
