"""The docs annotation on plain manifest and catalog dicts: added, never replacing the user's text."""

import copy

from dbt_analyze.docs import ESTIMATED_SECTION, SECTION, annotate

STATISTICS = {
    "tables": [{"table_schema": "analytics", "table_name": "orders", "row_count": 4, "size_bytes": 2048, "file_count": 2,
                "collected_at": "2026-11-22 07:00:00.000000"}],
    "columns": [{"table_schema": "analytics", "table_name": "orders", "column_name": "amount", "data_type": "double",
                 "null_count": 1, "distinct_count": 3, "min_value": "1.0", "max_value": "9.5", "mean": 4.0, "stddev": 4.924428900898052},
                {"table_schema": "analytics", "table_name": "orders", "column_name": "code", "data_type": "string",
                 "null_count": 0, "distinct_count": 4, "min_value": "a", "max_value": "d", "avg_len": 1.0, "max_len": 1}],
    "histograms": [{"table_schema": "analytics", "table_name": "orders", "column_name": "amount", "bin": i,
                    "lower_bound": str(i), "upper_bound": str(i + 1), "row_count": 1.0} for i in range(3)],
    "top_values": [{"table_schema": "analytics", "table_name": "orders", "column_name": "amount", "rank": 1, "value": "1.0", "frequency": 2}],
    "staleness": [{"table_schema": "analytics", "table_name": "orders", "partition_spec": "", "status": "fresh"}],
    "runs": [{"table_schema": "analytics", "table_name": "orders", "status": "succeeded", "rows_scanned": 4, "scan_ms": 120}],
}


def project():
    manifest = {
        "metadata": {"project_name": "shop"},
        "nodes": {
            "model.shop.orders": {"resource_type": "model", "name": "orders", "schema": "analytics", "alias": "orders",
                                  "description": "Orders, one row each.",
                                  "columns": {"amount": {"name": "amount", "description": "In euros."}}},
            "model.shop.other": {"resource_type": "model", "name": "other", "schema": "analytics", "alias": "other",
                                 "description": "Untouched.", "columns": {}},
        },
        "sources": {},
        "docs": {"doc.dbt.__overview__": {"block_contents": "Welcome!", "name": "__overview__"}},
    }
    catalog = {"nodes": {"model.shop.orders": {"stats": {"rows": {"id": "rows", "value": 0, "include": True}}},
                         "model.shop.other": {"stats": {"rows": {"id": "rows", "value": 0, "include": True}}}}, "sources": {}}
    return manifest, catalog


def test_statistics_are_added_after_the_users_text():
    manifest, catalog = project()
    assert annotate(manifest, catalog, STATISTICS) == ["model.shop.orders"]
    orders = manifest["nodes"]["model.shop.orders"]
    assert orders["description"].startswith("Orders, one row each.\n\n" + SECTION)
    assert "**Rows** 4" in orders["description"] and "data:image/svg+xml;base64," in orders["description"]
    assert "Top values: 1.0 (2)" in orders["description"]
    assert "**Last run** succeeded, 4 rows scanned" in orders["description"]
    # no boolean column: no true/false columns; mean and standard deviation under the column's heading
    assert "| column | type | null % | distinct | min | max | avg len | max len |\n" in orders["description"]
    assert "| code | string | 0.0 | 4 | a | d | 1 | 1 |\n" in orders["description"]
    assert "#### amount\n\nMean 4 · standard deviation 4.924\n" in orders["description"]
    assert "#### code" not in orders["description"], "a column with nothing more to show gets no heading"
    # the numbers first: dbt docs' column table shows a description's first characters only
    assert orders["columns"]["amount"]["description"] == "In euros.\n\nnulls 25.0%, distinct 3, range 1.0 … 9.5 (dbt_analyze)"
    assert catalog["nodes"]["model.shop.orders"]["stats"]["rows"]["value"] == 4


def test_boolean_columns_get_true_and_false_counts():
    manifest, catalog = project()
    flag = {"table_schema": "analytics", "table_name": "orders", "column_name": "paid", "data_type": "boolean",
            "null_count": 0, "distinct_count": 2, "min_value": "false", "max_value": "true", "true_count": 3, "false_count": 1}
    annotate(manifest, catalog, {**STATISTICS, "columns": STATISTICS["columns"] + [flag], "runs": [{**STATISTICS["runs"][0], "rows_scanned": 1}]})
    description = manifest["nodes"]["model.shop.orders"]["description"]
    assert "| avg len | max len | true | false |\n" in description
    assert "| paid | boolean | 0.0 | 2 | false | true |  |  | 3 | 1 |\n" in description
    assert "| amount | double | 25.0 | 3 | 1 | 9.5 |  |  |  |  |\n" in description
    assert "succeeded, 1 row scanned" in description


def test_nodes_without_statistics_are_left_as_they_were():
    manifest, catalog = project()
    before = copy.deepcopy((manifest["nodes"]["model.shop.other"], catalog["nodes"]["model.shop.other"]))
    annotate(manifest, catalog, STATISTICS)
    assert (manifest["nodes"]["model.shop.other"], catalog["nodes"]["model.shop.other"]) == before


def test_the_overview_keeps_its_text_and_lists_the_tables():
    manifest, catalog = project()
    annotate(manifest, catalog, STATISTICS)
    overview = manifest["docs"]["doc.shop.__overview__"]["block_contents"]
    assert overview.startswith("Welcome!") and "| analytics.orders | 4 | 2.0 KiB |" in overview


def test_annotating_twice_replaces_instead_of_repeating():
    manifest, catalog = project()
    annotate(manifest, catalog, STATISTICS)
    once = copy.deepcopy(manifest)
    annotate(manifest, catalog, STATISTICS)
    assert manifest == once


ESTIMATES = [{"table_schema": "analytics", "table_name": "other", "column_name": "code", "data_type": "string", "row_count": 4,
              "null_count": 0, "distinct_count": 3, "max_len": 32, "accuracy": "accurate",
              "derived_from": "analytics.orders.amount", "estimated_at": "2026-11-22 08:00:00.000000"},
             {"table_schema": "analytics", "table_name": "other", "column_name": "note", "accuracy": "unknown"}]


def test_estimates_are_shown_as_estimates():
    manifest, catalog = project()
    assert annotate(manifest, catalog, {**STATISTICS, "estimates": ESTIMATES}) == ["model.shop.orders", "model.shop.other"]
    other = manifest["nodes"]["model.shop.other"]
    assert other["description"].startswith("Untouched.\n\n" + ESTIMATED_SECTION)
    assert "not measured" in other["description"]
    assert "| code | string | accurate | 4 | 0.0 | 3 |  |  |  | 32 | analytics.orders.amount |" in other["description"]
    assert "| note |  | unknown |" in other["description"]
    assert SECTION not in other["description"]
    assert catalog["nodes"]["model.shop.other"]["stats"]["rows"]["value"] == 0, "estimates are not the catalog's numbers"
    once = copy.deepcopy(manifest)
    annotate(manifest, catalog, {**STATISTICS, "estimates": ESTIMATES})
    assert manifest == once


def test_history_pictures_need_runs_enough():
    """The row count's history from two runs on; a column's null fraction and distinct count from three."""
    def history(runs: int) -> list[dict]:
        rows = []
        for run in range(runs):
            when = f"2026-11-0{run + 1} 10:00:00"
            rows += [{"table_schema": "analytics", "table_name": "orders", "column_name": "", "run_id": f"r{run}", "collected_at": when,
                      "row_count": 4 + run, "null_count": None, "distinct_count": None},
                     {"table_schema": "analytics", "table_name": "orders", "column_name": "amount", "run_id": f"r{run}", "collected_at": when,
                      "row_count": None, "null_count": 1, "distinct_count": 3 + run}]
        return rows

    pictures = {}
    for runs in (1, 2, 3):
        manifest, catalog = project()
        annotate(manifest, catalog, {**STATISTICS, "history": history(runs)})
        pictures[runs] = [alt for alt in ("row count history", "null fraction history of amount", "distinct count history of amount")
                          if f"![{alt}]" in manifest["nodes"]["model.shop.orders"]["description"]]
    assert pictures == {1: [], 2: ["row count history"],
                        3: ["row count history", "null fraction history of amount", "distinct count history of amount"]}
