"""Python models on plain Spark: an in-process ``session`` submission method for dbt-spark.

dbt-spark 1.11 submits Python models to Databricks only (``job_cluster``, ``all_purpose_cluster``).
With ``method: session`` the SparkSession already lives in dbt's own process, so running a model
is executing its compiled code there, with ``spark`` bound to that session. ``register()`` adds
the method to dbt-spark and makes it the default for session connections. Thrift connections get
a clear error instead of dbt-spark's Databricks ones (Python cannot run on a Thrift server);
Databricks connections (dbt-databricks, or dbt-spark's http/odbc) keep their own methods.

Example (a model's config, only needed to be explicit)::

    def model(dbt, session):
        dbt.config(submission_method="session", file_format="parquet")
        return session.range(10)
"""

from __future__ import annotations

from typing import Any, Dict

SUBMISSION_METHOD = "session"


def _method(credentials: Any) -> str:
    method = getattr(credentials, "method", None)
    return str(getattr(method, "value", method))


class SessionPythonJobHelper:
    """Runs a compiled Python model in the current process's SparkSession."""

    def __init__(self, parsed_model: Dict[str, Any], credentials: Any) -> None:
        self.parsed_model = parsed_model
        self.credentials = credentials

    def submit(self, compiled_code: str) -> None:
        from pyspark.sql import SparkSession

        name = self.parsed_model.get("unique_id", self.parsed_model.get("alias", "python model"))
        if _method(self.credentials) != SUBMISSION_METHOD:
            # a local SparkSession here would write into another metastore than the target's
            raise_session_required(name, self.credentials)
        # The filename makes the model's own lines show in a traceback, which dbt reports as the
        # model's failure.
        code = compile(compiled_code, f"<{name}>", "exec")
        exec(code, {"__name__": "__dbt_python_model__", "spark": SparkSession.builder.getOrCreate()})


class SessionRequiredHelper(SessionPythonJobHelper):
    """The default for Thrift connections: Python cannot run on a Thrift server, so say so."""

    def submit(self, compiled_code: str) -> None:
        raise_session_required(self.parsed_model.get("unique_id", "python model"), self.credentials)


def raise_session_required(name: str, credentials: Any) -> None:
    from dbt_common.exceptions import DbtRuntimeError

    raise DbtRuntimeError(
        f"dbt_analyze: Python model {name} needs a Spark session in dbt's process (profile method: session, e.g. "
        f"dbt in a cluster's driver through spark-submit) or Databricks (dbt-databricks); this target connects "
        f"with method '{_method(credentials)}', which runs SQL only. The statistics work over it all the same: "
        f"the analyze() post-hook, analyze_table and estimate_statistics are SQL.")


def register() -> bool:
    """Add the ``session`` method to dbt-spark's adapter; returns False when dbt-spark is absent."""
    try:
        from dbt.adapters.spark.impl import SparkAdapter
    except ImportError:  # dbt-spark not installed: nothing to extend
        return False
    if getattr(SparkAdapter, "_dbt_analyze_session", False):
        return True
    helpers = SparkAdapter.python_submission_helpers
    default_method = SparkAdapter.default_python_submission_method

    def python_submission_helpers(self):
        return {**helpers.fget(self), SUBMISSION_METHOD: SessionPythonJobHelper, "session_required": SessionRequiredHelper}

    def default_python_submission_method(self):
        if is_session(self):
            return SUBMISSION_METHOD
        if _method(getattr(self.config, "credentials", None)) == "thrift":
            return "session_required"
        return default_method.fget(self)

    SparkAdapter.python_submission_helpers = property(python_submission_helpers)
    SparkAdapter.default_python_submission_method = property(default_python_submission_method)
    SparkAdapter._dbt_analyze_session = True
    return True


def is_session(adapter: Any) -> bool:
    """Whether the adapter's connection is dbt-spark's in-process session."""
    return _method(getattr(adapter.config, "credentials", None)) == SUBMISSION_METHOD
