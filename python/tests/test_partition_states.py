"""The states read's rows as partition states, and each partition's status (the incremental tests
run both on Spark, through a session and through Thrift)."""

from decimal import Decimal

from dbt_analyze.partition_states import partition_status, read_states


def state_rows(table, spec, run, columns, files=(2, 30, "7"), sketches="full", text_items=(), mapped_by="r9",
               merged=None, tracked=2048):
    """The rows the states read gives for one partition's state: its partition row, then a row per
    column (its top-k sketch tracking `tracked` items)."""
    rows = [(*table, spec, "", None, *files, sketches, "2026-01-01 00:00:00", run, None, mapped_by, merged, None)]
    rows += [(*table, spec, name, data_type, None, None, None, None, None, run, name in text_items, mapped_by, merged,
              tracked) for name, data_type in columns.items()]
    return rows


def test_states_of_several_tables_each_under_its_own():
    rows = (state_rows(("s", "a"), "p=1", "r1", {"x": "int", "y": "string"}, text_items=("x",))
            + state_rows(("s", "b"), "", "r2", {"z": "date"}, mapped_by="r2", merged="basic")
            + [("s", "a", None, None, None, None, None, None, None, None, "r1,r9,", None, None, None, None)])
    read = read_states([("s", "b"), ("s", "a"), ("s", "c")], rows)
    assert read["states"][1] == {"p=1": {"fingerprint": [2, 30, "7"], "columns": {"x": "int", "y": "string"},
                                         "sketches": "full", "collected_at": "2026-01-01 00:00:00", "run_id": "r1",
                                         "text_top_values": ["x"], "top_k_tracked": {"x": 2048, "y": 2048}, "sketch_rate": None}}
    assert list(read["states"][0]) == [""] and read["states"][2] == {}
    assert read["latest"] == ["r2", "r9", None]
    assert read["merged"] == ["basic", None, None]
    assert read["succeeded"] == [[], ["r1", "r9"], []]
    assert read["top_k_tracked"] == [{"z": 2048}, {"x": 2048, "y": 2048}, {}]


def test_counts_through_agate_are_decimals_and_compare_with_the_listing():
    """Through Thrift, dbt hands the rows over as agate's: numbers are Decimals."""
    rows = state_rows(("s", "t"), "p=1", "r1", {"x": "int"}, files=(Decimal(2), Decimal(30), "7"))
    states = read_states([("s", "t")], rows)["states"][0]
    listing = {"p=1": {"file_count": 2, "size_bytes": 30, "modified_at": "7"}}
    assert partition_status(["p=1"], listing, states, {"x": "int"}, []) == {"p=1": "fresh"}


def test_every_reason_a_partition_is_scanned_again():
    states = read_states([("s", "t")], state_rows(("s", "t"), "p=1", "r1", {"x": "int"}, sketches="basic")
                         + state_rows(("s", "t"), "p=2", "r1", {"x": "int"}, text_items=("x",))
                         + state_rows(("s", "t"), "p=9", "r1", {"x": "int"}))["states"][0]
    listing = {spec: {"file_count": 2, "size_bytes": 30, "modified_at": "7"} for spec in ("p=1", "p=2", "p=3")}
    assert partition_status(["p=1", "p=2", "p=3"], listing, states, {"x": "int"}, [], "basic") == {
        "p=1": "fresh", "p=2": "fresh", "p=3": "new", "p=9": "dropped"}
    # full sketches over a basic state; a number's top-k sketch of text items
    assert partition_status(["p=1", "p=2"], listing, states, {"x": "int"}, ["x"], "full") == {
        "p=1": "stale", "p=2": "stale", "p=9": "dropped"}
    # a column the state lacks; another file
    assert partition_status(["p=2"], listing, states, {"x": "int", "y": "string"}, [], "basic")["p=2"] == "stale"
    # a top-k sketch tracking fewer items than the run gives its column, of a column asked for (not of another)
    assert partition_status(["p=2"], listing, states, {"x": "int"}, [], "full", top_k_tracked={"x": 4096})["p=2"] == "stale"
    assert partition_status(["p=2"], listing, states, {"x": "int"}, [], "full", top_k_tracked={"x": 2048})["p=2"] == "fresh"
    assert partition_status(["p=2"], listing, states, {}, [], "full", top_k_tracked={"x": 4096})["p=2"] == "fresh"
    assert partition_status(["p=2"], listing, states, {"x": "int"}, [], "full",
                            top_k_tracked={"x": 2048, "z": 4096})["p=2"] == "fresh"
    listing["p=2"] = {"file_count": 3, "size_bytes": 30, "modified_at": "7"}
    assert partition_status(["p=2"], listing, states, {"x": "int"}, [], "basic")["p=2"] == "stale"
