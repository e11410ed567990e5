"""The package's data tests (macros/generic_tests): checks that read a model's statistics, not its data.

The models and tests are in integration_tests/models/checked (enabled by var statistics_tests):
normal history passes; seeded anomalies (a null spike, a collapsed distinct count, a shifted mean,
a newest partition with 10x the rows) each fail with their message; stale or missing statistics
fail; bad arguments are refused.
"""

import json
import re

import pytest
from conftest import rows

CHECKED = {"statistics_tests": True}
ON_PURPOSE = ("--exclude", "tag:bad_input", "tag:not_unique", "tag:no_statistics")  # tests that fail by design
NORMAL_BUILDS = 4  # the anomaly tests judge from 3 earlier runs


def checked(dbt, command: str, *args: str, **variables):
    return dbt(command, "--select", *args, "--vars", json.dumps({**CHECKED, **variables}))


def failures(result) -> dict[str, str]:
    """{test name: the message it logged} of the tests that failed."""
    found = {}
    for line in result.messages:
        if line.startswith("dbt_analyze: ") and " failed: " in line:
            test, message = line[len("dbt_analyze: "):].split(" failed: ", 1)
            found.setdefault(test, message)
    return found


def earlier_runs(message: str) -> int:
    """The runs an anomaly test judged from: at least this module's normal builds; another module's
    runs of the same table, in the same worker's storage, count too."""
    return int(re.search(r"from the (\d+) runs before it", message).group(1))


@pytest.fixture(scope="module")
def history(dbt):
    """Four normal builds, each analyzed by its post-hook; the last one also runs the tests."""
    for _ in range(NORMAL_BUILDS - 1):
        result = checked(dbt, "run", "checked")
        assert result.success, result.error
    result = checked(dbt, "build", "checked", *ON_PURPOSE)
    return result


def test_tests_pass_on_normal_history(history):
    assert history.success, history.error
    assert failures(history) == {}
    assert "distinct_count_anomaly: analytics.checked_orders has 3 earlier runs" not in history.log


def test_seeded_anomalies_fail_each_with_its_message(spark, dbt, history):
    result = checked(dbt, "build", "checked", *ON_PURPOSE,
                     checked_nulls=300, checked_statuses=2, checked_shift=50, checked_last_day_rows=1000)
    assert not result.success
    found = failures(result)
    assert set(found) == {"null_fraction_anomaly", "distinct_count_anomaly", "mean_anomaly", "row_count_anomaly",
                          "null_fraction_at_most", "distinct_count_between", "mean_between", "values_between"}, found
    # this build's statistics: the post-hook ran before the tests
    assert found["null_fraction_at_most"].startswith("null_fraction of analytics.checked_orders.status is 0.3; expected at most 0.1")
    assert "mean of analytics.checked_orders.amount is 153 (statistics of run" in found["mean_anomaly"]
    assert earlier_runs(found["mean_anomaly"]) >= NORMAL_BUILDS
    assert found["distinct_count_anomaly"].startswith("distinct_count of analytics.checked_orders.status is 2 ")
    assert earlier_runs(found["distinct_count_anomaly"]) >= NORMAL_BUILDS
    assert found["null_fraction_anomaly"].startswith("null_fraction of analytics.checked_orders.status is 0.3 ")
    assert found["values_between"].startswith("the values of analytics.checked_orders.amount range from 150.0 to 156.0; expected between 90 and 120")
    assert found["row_count_anomaly"].startswith("row_count of analytics.checked_daily in partition day=8 is 1,000 ")
    assert "from the 7 partitions before it (day=1 … day=7)" in found["row_count_anomaly"]
    # the row count did not move: its tests pass
    assert rows(spark, "select count(*) as n from analytics.checked_orders") == [{"n": 1000}]


def test_a_column_with_duplicates_is_not_probably_unique(dbt, history):
    result = checked(dbt, "test", "checked_orders,tag:not_unique")
    assert not result.success
    assert "analytics.checked_orders.status has about " in failures(result)["probably_unique"]


def test_stale_statistics_fail(dbt, history):
    """Rebuilt without its post-hook, the model's statistics are older than its files."""
    result = checked(dbt, "run", "checked_orders", checked_hook=False)
    assert result.success, result.error
    result = checked(dbt, "test", "checked_orders,test_name:row_count_between", "--exclude", "tag:bad_input")
    assert not result.success
    message = failures(result)["row_count_between"]
    assert message.startswith("the statistics of analytics.checked_orders are stale: its files changed after they were collected")
    assert "dbt_analyze.analyze()" in message
    result = checked(dbt, "run", "checked_orders")  # analyzed again: fresh
    assert result.success, result.error


def test_a_model_without_statistics_fails_saying_how_to_collect_them(dbt):
    assert checked(dbt, "run", "never_analyzed").success
    result = checked(dbt, "test", "tag:no_statistics")
    assert not result.success
    assert failures(result)["row_count_between"] == (
        "analytics.never_analyzed has no statistics: add the post-hook {{ dbt_analyze.analyze() }} to the model, "
        "or run dbt run-operation analyze_table --args '{relation: analytics.never_analyzed}'")


@pytest.mark.parametrize("test_name, error", [
    ("row_count_between", "row_count_between: min (10) is above max (5)"),
    ("mean_anomaly", "mean_anomaly: sensitivity must be a positive number, got 0"),
    ("row_count_anomaly", "row_count_anomaly: over='partitions' needs a partitioned table; analytics.checked_orders is not partitioned"),
    ("null_fraction_at_most", "unknown column 'no_such_column' in analytics.checked_orders"),
])
def test_bad_arguments_are_refused(dbt, history, test_name, error):
    result = checked(dbt, "test", f"tag:bad_input,test_name:{test_name}")
    assert not result.success
    assert error in result.error
