"""Every entry point as the first command of a new process, with a profile that pins its own
warehouse and metastore (profiles.yml: DBT_ANALYZE_HOME), run from a directory of its own.

Whichever of dbt-spark and the library touches Spark first creates the process's session for
good: the library must build it as dbt-spark does (Hive support, the profile's settings), or the
process gets Spark's defaults, an in-memory catalog and `./spark-warehouse` in the directory dbt
runs from, and sees none of the user's tables. A start is most of a process's time, so each
command is asserted on in the process that runs it."""

from __future__ import annotations

import json

import pytest
from conftest import PROJECT, dbt_process

HOME = PROJECT.parent / ".spark" / "first"
WAREHOUSE = HOME / "spark-warehouse"
TABLE = "analytics.purchases"


def first_command(tmp_path, *args: str, command: str = "dbt") -> tuple[int, str]:
    """The command in a new process, from an empty directory that must stay empty: Spark's
    defaults would put a warehouse, a metastore and a log there."""
    cwd = tmp_path / "cwd"
    cwd.mkdir(exist_ok=True)
    code, output = dbt_process(HOME, {"DBT_ANALYZE_HOME": str(HOME)}, *args, cwd=cwd, command=command)
    assert sorted(path.name for path in cwd.iterdir()) == [], output[-3000:]
    return code, output


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    """purchases (analyzed by its post-hook) and purchases_filtered over it, built in a process of
    their own; customers compiled only (its input, orders, is never built here)."""
    import shutil

    shutil.rmtree(HOME, ignore_errors=True)
    HOME.mkdir(parents=True)
    tmp_path = tmp_path_factory.mktemp("first")
    # A refused request, the first command ever against this metastore: nothing is created.
    code, output = first_command(tmp_path, "run-operation", "analyze_table", "--args",
                                 json.dumps({"relation": TABLE, "bogus_option": 1}))
    assert code != 0 and "unknown option 'bogus_option'" in output, output[-3000:]
    assert not WAREHOUSE.exists() and not (HOME / "metastore_db").exists(), list(HOME.iterdir())

    code, output = first_command(tmp_path, "run", "--select", "purchases", "purchases_filtered")
    assert code == 0, output[-3000:]
    assert "dbt_analyze: analytics.purchases analyzed: 20000 rows" in output
    code, output = first_command(tmp_path, "compile", "--select", "customers")
    assert code == 0, output[-3000:]
    assert (WAREHOUSE / "analytics_stats.db").is_dir()
    return tmp_path


def test_analyze_table_sees_the_table(built):
    code, output = first_command(built, "run-operation", "analyze_table", "--args", json.dumps({"relation": TABLE, "columns": "all"}))
    assert code == 0, output[-3000:]
    assert "dbt_analyze: analytics.purchases unchanged since its last analysis" in output


def test_a_refused_analyze_table_of_an_unknown_table_creates_nothing_either(built):
    code, output = first_command(built, "run-operation", "analyze_table", "--args", json.dumps({"relation": "analytics.nope"}))
    assert code != 0 and "unknown table analytics.nope" in output, output[-3000:]


def test_estimate_statistics_reads_the_inputs_statistics(built):
    code, output = first_command(built, "run-operation", "estimate_statistics", "--args",
                                 json.dumps({"select": ["purchases_filtered"]}))
    assert code == 0, output[-3000:]
    assert "TABLE_OR_VIEW_NOT_FOUND" not in output
    assert "estimate analytics.purchases_filtered: " in output and "rows unknown" not in output, output[-3000:]
    assert "estimated column(s) written to `analytics_stats`.`column_statistics_estimated`" in output


def test_estimate_statistics_names_a_missing_input(built):
    code, output = first_command(built, "run-operation", "estimate_statistics", "--args", json.dumps({"select": ["customers"]}))
    assert code != 0
    assert "cannot estimate customers: its input analytics.orders_seed is not in the catalog" in output, output[-3000:]
    # over the whole project the model is left out with a warning, and the others are estimated
    code, output = first_command(built, "run-operation", "estimate_statistics")
    assert code == 0, output[-3000:]
    assert "cannot estimate customers: its input analytics.orders_seed is not in the catalog" in output
    assert "customers is left out" in output and "estimate analytics.purchases_filtered: " in output


def test_export_then_import(built):
    document = built / "purchases.json"
    code, output = first_command(built, "run-operation", "export_statistics", "--args",
                                 json.dumps({"tables": [TABLE], "path": str(document)}))
    assert code == 0, output[-3000:]
    assert [t["table"] for t in json.loads(document.read_text())["tables"]] == ["purchases"]
    code, output = first_command(built, "run-operation", "import_statistics", "--args", json.dumps({"path": str(document)}))
    assert code == 0, output[-3000:]
    assert "dbt_analyze: imported the statistics of analytics.purchases" in output


def test_set_statistics(built):
    code, output = first_command(built, "run-operation", "set_statistics", "--args",
                                 json.dumps({"relation": TABLE, "column": "status", "distinct_count": 5}))
    assert code == 0, output[-3000:]
    assert "purchases" in output


def test_analyze_stale_compact_and_refresh(built):
    code, output = first_command(built, "run-operation", "analyze_stale", "--args", json.dumps({"check_only": True}))
    assert code == 0, output[-3000:]
    assert "analytics.purchases" in output, output[-3000:]
    code, output = first_command(built, "run-operation", "compact_statistics")
    assert code == 0, output[-3000:]
    assert "nothing to compact" not in output, output[-3000:]
    code, output = first_command(built, "run-operation", "refresh_statistics")
    assert code == 0, output[-3000:]


def test_docs_generate(built):
    code, output = first_command(built, "docs", "generate", command="dbt-analyze")
    assert code == 0, output[-3000:]
    manifest = json.loads((HOME / "target" / "manifest.json").read_text())
    assert "**Rows** 20,000" in manifest["nodes"]["model.dbt_analyze_integration_tests.purchases"]["description"]
