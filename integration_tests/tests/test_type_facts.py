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


def test_arithmetic_types_are_sparks(spark):
    """The estimator's arithmetic_type against Spark's typeof() for every pair of numeric types and
    operator, with ANSI mode off (dbt-spark's sessions) and on (Spark 4's default, a Thrift
    server's): they differ for a float with an integer or decimal. sqlglot's annotate_types (Spark
    dialect) was tried instead and differs from Spark (ANSI on) in 279 of these 486 cases: it keeps
    the wider operand's decimal type (Spark's precision rules widen it), types an integer with a
    float as float and `div` of fractions as bigint (Spark refuses it)."""
    import itertools

    from dbt_analyze.column_stats import ColumnStats
    from dbt_analyze.expressions import arithmetic_type

    types = ["tinyint", "smallint", "int", "bigint", "float", "double", "decimal(10,2)", "decimal(38,10)", "decimal(5,0)"]
    values = ", ".join(f"cast(1 as {t}) as c{i}" for i, t in enumerate(types))
    cases = [(i, left, operator, j, right) for (i, left), (j, right) in itertools.product(enumerate(types), repeat=2)
             for operator in ("+", "-", "*", "/", "%", "div") if not (operator == "div" and {"float", "double"} & {left, right})]
    before = spark.conf.get("spark.sql.ansi.enabled")
    differ = []
    try:
        for ansi in (False, True):
            spark.conf.set("spark.sql.ansi.enabled", str(ansi).lower())
            for i, left, operator, j, right in cases:
                sparks = spark.sql(f"select typeof(c{i} {operator} c{j}) from (select {values})").collect()[0][0]
                ours = arithmetic_type(operator, ColumnStats(left), ColumnStats(right), ansi=ansi)
                if ours != sparks:
                    differ.append((ansi, left, operator, right, ours, sparks))
    finally:
        spark.conf.set("spark.sql.ansi.enabled", before)
    assert differ == []
