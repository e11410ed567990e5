"""dbt_analyze: the Python side of the dbt_analyze package.

dbt-core imports every installed top-level module whose name starts with ``dbt_`` when it loads a
project, so importing this module is how the library takes part: it gives dbt-spark's ``session``
connection a submission method for Python models (see :mod:`dbt_analyze.session_submission`) and
seeds that load as written (see :mod:`dbt_analyze.session_seeds`), and the package's macros a way
into Spark's catalog and the file system (see :mod:`dbt_analyze.adapter_methods`). The package's
macros are compiled once per machine, not once per process (see :mod:`dbt_analyze.macro_templates`).
"""

from dbt_analyze import adapter_methods, macro_templates, session_seeds, session_submission


def register() -> bool:
    """Extend dbt-spark (when installed); idempotent."""
    return (session_submission.register() and session_seeds.register() and adapter_methods.register()
            and macro_templates.register())


register()

__all__ = ["register"]
