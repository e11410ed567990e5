"""Which submission method dbt-spark's adapter uses for Python models, per connection method."""

import types

import pytest
from dbt.adapters.spark.connections import SparkConnectionMethod, SparkCredentials
from dbt.adapters.spark.impl import SparkAdapter

import dbt_analyze  # noqa: F401  (registers the method, as dbt's plugin scan does)
from dbt_analyze.session_submission import SessionPythonJobHelper, SessionRequiredHelper


def adapter_for(method: SparkConnectionMethod, **more) -> SparkAdapter:
    adapter = object.__new__(SparkAdapter)  # only its connection's credentials matter here
    adapter.config = types.SimpleNamespace(credentials=SparkCredentials(schema="analytics", host="localhost", method=method, **more))
    return adapter


@pytest.mark.parametrize("method,expected", [
    (SparkConnectionMethod.SESSION, "session"),
    (SparkConnectionMethod.THRIFT, "session_required"),
    # Databricks connections of dbt-spark keep dbt-spark's own default (odbc alike; it needs pyodbc to build)
    (SparkConnectionMethod.HTTP, "all_purpose_cluster"),
])
def test_default_method_per_connection(method, expected):
    adapter = adapter_for(method)
    assert adapter.default_python_submission_method == expected
    helpers = adapter.python_submission_helpers
    assert {"job_cluster", "all_purpose_cluster", "session", "session_required"} <= set(helpers)
    assert helpers["session"] is SessionPythonJobHelper and helpers["session_required"] is SessionRequiredHelper


def test_a_python_model_over_thrift_fails_with_a_reason():
    from dbt_common.exceptions import DbtRuntimeError

    credentials = adapter_for(SparkConnectionMethod.THRIFT).config.credentials
    for helper in (SessionRequiredHelper, SessionPythonJobHelper):  # also when asked for session by name
        with pytest.raises(DbtRuntimeError, match="needs a Spark session in dbt's process .* method 'thrift'"):
            helper({"unique_id": "model.p.m"}, credentials).submit("def model(dbt, session): ...")


def test_statements_run_at_once_only_in_a_session():
    """Elsewhere (Thrift) the package's macros run them one by one through dbt's connection."""
    from dbt_analyze.statements import dbt_analyze_run_concurrently

    assert dbt_analyze_run_concurrently(adapter_for(SparkConnectionMethod.THRIFT), ["select 1"]) is False


def test_the_library_reaches_spark_only_through_the_profiles_session():
    """A bare ``SparkSession.builder...getOrCreate()`` that runs before dbt-spark's first statement
    gives the process Spark's defaults for good (an in-memory catalog, ./spark-warehouse):
    profile_spark_session is the one place that builds the session, as dbt-spark does."""
    import re
    from pathlib import Path

    import dbt_analyze
    from dbt_analyze import session_submission

    builds = re.compile(r"getOrCreate\(|SparkSession\s*\.\s*builder|\.builder\b|SparkContext\(|getActiveSession\(")
    found = {}
    for path in Path(dbt_analyze.__file__).parent.glob("*.py"):
        text = path.read_text(encoding="utf-8")
        if path.name == "session_submission.py":
            start = text.index("def profile_spark_session(")
            end = text.find("\ndef ", start + 1)
            text = text[:start] + text[end if end != -1 else len(text):]
        code = "\n".join(line for line in text.splitlines() if not line.lstrip().startswith(("#", ">>>")))
        hits = [line.strip() for line in code.splitlines() if builds.search(line)]
        if hits:
            found[path.name] = hits
    assert found == {}
    assert "getOrCreate()" in Path(session_submission.__file__).read_text(encoding="utf-8")

