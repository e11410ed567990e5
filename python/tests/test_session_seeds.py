"""How dbt-spark's session connection binds seed values once the library is registered."""

import datetime
from decimal import Decimal

from dbt.adapters.spark.session import SessionConnectionWrapper

import dbt_analyze  # noqa: F401  (registers, as dbt's plugin scan does)


def test_empty_cells_and_strings_become_spark_literals_and_the_rest_stays_dbt_sparks():
    bind = SessionConnectionWrapper._fix_binding
    assert bind(None) == "NULL"
    assert bind("it's a \\ test") == "'it\\'s a \\\\ test'"
    assert bind("None") == "'None'"  # a cell that says None is the text None
    assert bind(Decimal("2.5")) == 2.5 and bind(3) == 3.0
    assert bind(datetime.datetime(2024, 1, 2, 3, 4, 5, 678000)) == "'2024-01-02 03:04:05.678'"


def test_registering_twice_changes_nothing():
    before = SessionConnectionWrapper._fix_binding
    assert dbt_analyze.register()
    assert SessionConnectionWrapper._fix_binding == before
