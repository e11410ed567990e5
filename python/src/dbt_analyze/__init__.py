"""dbt_analyze: the Python side of the dbt_analyze package.

dbt-core imports every installed top-level module whose name starts with ``dbt_`` when it loads a
project, so importing this module is how the library takes part: it gives dbt-spark's ``session``
connection a submission method for Python models (see :mod:`dbt_analyze.session_submission`).
"""

from dbt_analyze.session_submission import register

register()

__all__ = ["register"]
