"""The macros and the library read Spark's types alike: the macros' `_type_category` and
`_default_size` (macros/rewrite/_measures.sql) against the library's spark_types.py."""

import json

from dbt_analyze.spark_types import category, default_size

# Every type name Spark's DESCRIBE prints or a user may write, aliases included.
TYPES = ["boolean", "tinyint", "byte", "smallint", "short", "int", "integer", "bigint", "long", "float", "real", "double",
         "decimal", "decimal(5,2)", "decimal(18,0)", "decimal(19,0)", "decimal(38,10)", "dec(10,2)", "numeric(30,4)",
         "date", "timestamp", "timestamp_ltz", "timestamp_ntz", "string", "string collate utf8_lcase", "string collate unicode_ci_ai",
         "char(5)", "varchar(10)", "binary", "interval year", "interval year to month", "interval month", "interval day",
         "interval day to second", "interval hour to minute", "interval second", "array<int>", "map<string,int>",
         "struct<a:int,b:string>", "variant", "void", "BIGINT", "Decimal(20, 2)"]


def test_the_macros_and_the_library_agree_on_every_type(dbt):
    result = dbt("run-operation", "print_type_facts", "--args", json.dumps({"types": TYPES}))
    assert result.success, result.error
    line = next(m for m in result.messages if m.startswith("TYPE_FACTS: "))
    macros = json.loads(line[len("TYPE_FACTS: "):])
    library = {data_type: [category(data_type), default_size(data_type)] for data_type in TYPES}
    assert macros == library
