"""Grammar fuzzing: generated ANALYZE statements, valid and broken, through the package's parser.

Valid statements parse into the request they were generated from; broken ones give an error that
names a position inside the statement; nothing ends in an internal error. Statements are parsed in
batches, one dbt call per batch. A last test plans generated statements against a real table."""

import re

import pytest

from conftest import analyze, parse_statements
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

# Basic multilingual plane: --args travels as YAML, whose loader does not join JSON's surrogate pairs.
NAME_CHARS = st.characters(max_codepoint=0xFFFF, exclude_categories=("Cs", "Cc"))
bare_names = st.from_regex(r"[A-Za-z_][A-Za-z0-9_]{0,8}", fullmatch=True)
hostile_names = st.text(NAME_CHARS, min_size=1, max_size=8)
KEYWORDS = {"ANALYZE", "TABLE", "PARTITION", "COMPUTE", "STATISTICS", "NOSCAN", "FOR", "COLUMNS", "ALL"}


def random_case(draw, word: str) -> str:
    return "".join(c.upper() if draw(st.booleans()) else c.lower() for c in word)


@st.composite
def identifiers(draw) -> tuple[str, str]:
    """(name, its SQL text): bare words, or anything in backquotes."""
    if draw(st.booleans()):
        name = draw(bare_names.filter(lambda n: n.upper() not in KEYWORDS))
        return name, name
    name = draw(hostile_names)
    return name, "`" + name.replace("`", "``") + "`"


@st.composite
def literals(draw) -> tuple[str, str]:
    if draw(st.booleans()):
        number = draw(st.integers(-10**6, 10**6))
        return str(number), str(number)
    value = draw(st.text(NAME_CHARS, max_size=10))
    return value, "'" + value.replace("\\", "\\\\").replace("'", "''") + "'"


@st.composite
def statements(draw) -> tuple[str, dict]:
    """A valid statement and the request it must parse into."""
    space = lambda: draw(st.sampled_from([" ", "  ", "\n", "\t ", " \r\n "]))  # noqa: E731
    kw = lambda word: random_case(draw, word)  # noqa: E731
    schema, schema_sql = draw(identifiers())
    table, table_sql = draw(identifiers())
    text = kw("analyze") + space() + kw("table") + space() + schema_sql + "." + table_sql
    expected = {"schema": schema, "identifier": table, "relation": None, "partition": None, "columns": None, "noscan": False}
    if draw(st.booleans()):
        keys = draw(st.lists(st.tuples(identifiers(), st.booleans()), min_size=1, max_size=3,
                             unique_by=lambda k: k[0][0]))
        parts, partition = [], {}
        for (key, key_sql), with_value in keys:
            if with_value:
                value, value_sql = draw(literals())
                parts.append(key_sql + draw(st.sampled_from(["=", " = "])) + value_sql)
                partition[key] = value
            else:
                parts.append(key_sql)
                partition[key] = None
        text += space() + kw("partition") + space() + "(" + ", ".join(parts) + ")"
        expected["partition"] = partition
    text += space() + kw("compute") + space() + kw("statistics")
    option = draw(st.sampled_from(["none", "noscan", "all", "columns"]))
    if option == "noscan":
        text += space() + kw("noscan")
        expected["noscan"] = True
    elif option == "all":
        text += space() + kw("for") + space() + kw("all") + space() + kw("columns")
        expected["columns"] = "all"
    elif option == "columns":
        columns = draw(st.lists(identifiers(), min_size=1, max_size=4))
        text += space() + kw("for") + space() + kw("columns") + space() + ", ".join(sql for _, sql in columns)
        expected["columns"] = [name for name, _ in columns]
    if draw(st.booleans()):
        text += draw(st.sampled_from([";", " ;", ";\n"]))
    return text, expected


@st.composite
def broken_statements(draw) -> str:
    """A valid statement with a token cut out, a stray token put in, or cut short."""
    text, _ = draw(statements())
    tokens = re.findall(r"`(?:[^`]|``)*`|'(?:[^'\\]|\\.|'')*'|\S+?(?=[\s(),.=;]|$)|[(),.=;]|\s+", text)
    cut = draw(st.integers(0, len(tokens) - 1))
    how = draw(st.sampled_from(["drop", "insert", "truncate"]))
    if how == "drop":
        tokens = tokens[:cut] + tokens[cut + 1:]
    elif how == "insert":
        tokens = tokens[:cut] + [draw(st.sampled_from([" (", ") ", " , ", " = ", " TABLE ", " 'x' ", " ` ", " ' ", " # ", " COLUMNS "]))] + tokens[cut:]
    else:
        tokens = tokens[:cut]
    return "".join(tokens)


FUZZ = settings(max_examples=8, deadline=None, suppress_health_check=list(HealthCheck))


@FUZZ
@given(st.lists(statements(), min_size=25, max_size=25))
def test_valid_statements_parse_into_their_request(dbt, generated):
    results = parse_statements(dbt, [text for text, _ in generated])
    for (text, expected), parsed in zip(generated, results):
        assert parsed == expected, text


@FUZZ
@given(st.lists(broken_statements(), min_size=25, max_size=25))
def test_broken_statements_give_an_error_with_a_position(dbt, texts):
    results = parse_statements(dbt, texts)
    for text, parsed in zip(texts, results):
        if "error" not in parsed:
            continue  # the change left a valid statement (say, a dropped ';')
        position = re.search(r"at position (\d+)", parsed["error"])
        assert position or "not supported" in parsed["error"], (text, parsed)
        if position:
            assert 1 <= int(position.group(1)) <= len(text) + 1, (text, parsed)
    assert sum("error" in p for p in results) > len(texts) // 2  # most changes do break a statement


@pytest.fixture(scope="module")
def grid(spark):
    spark.sql("drop table if exists analytics.grid")
    spark.sql("create table analytics.grid (id int, amount double, region string, day string) using parquet partitioned by (region, day)")
    spark.sql("""insert into analytics.grid values (1, 1.0, 'eu', '2024-01-01'), (2, 2.0, 'eu', '2024-01-02'),
                 (3, 3.0, 'us', '2024-01-01'), (4, null, 'us', '2024-01-02')""")


@settings(max_examples=8, deadline=None, suppress_health_check=list(HealthCheck))
@given(region=st.sampled_from(["eu", "us", None]), day=st.sampled_from(["2024-01-01", "2024-01-02", None]),
       columns=st.sampled_from(["", " FOR ALL COLUMNS", " FOR COLUMNS amount", " FOR COLUMNS `id`, amount"]))
def test_generated_statements_plan_the_right_partitions(dbt, grid, region, day, columns):
    """Partial and full partition specs select every matching partition of a region x day grid."""
    import itertools

    spec = [f"region='{region}'" if region else "region", f"day='{day}'" if day else "day"]
    result = analyze(dbt, dry_run=True, full=True, statement=f"analyze table analytics.grid partition ({', '.join(spec)}) compute statistics{columns}")
    assert result.success, result.error
    matching = [p for p in itertools.product(["eu", "us"], ["2024-01-01", "2024-01-02"]) if region in (None, p[0]) and day in (None, p[1])]
    assert f"scan {len(matching)} partition(s)" in result.log
    for r, d in matching:
        assert f"'region={r}/day={d}'" in result.log
