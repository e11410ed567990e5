"""The package's macros compiled once per machine: kept on disk, loaded by the next process."""

import os
import subprocess
import sys
import textwrap

import pytest
from dbt_common.exceptions import CompilationError

from dbt_analyze.macro_templates import MacroTemplates, cache_directory


class Macro:
    def __init__(self, sql: str, package: str = "dbt_analyze") -> None:
        self.package_name, self.name, self.macro_sql = package, "greet", sql
        self.unique_id = f"macro.{package}.greet"


GREET = "{% macro greet(who) %}hello {{ who | upper }}{% endmacro %}"


def greeting(template, who="spark"):
    return template.module.dbt_macro__greet(who).strip()


def test_a_macro_compiled_once_is_loaded_by_the_next_cache_as_dbt_would_render_it(tmp_path):
    from dbt_common.clients.jinja import get_template

    first = MacroTemplates(tmp_path).template(Macro(GREET))
    loaded = MacroTemplates(tmp_path).template(Macro(GREET))
    assert greeting(first) == greeting(loaded) == greeting(get_template(GREET, {})) == "hello SPARK"
    assert len(list(tmp_path.glob("*.code"))) == 1


def test_an_edited_macro_is_compiled_anew(tmp_path):
    MacroTemplates(tmp_path).template(Macro(GREET))
    edited = MacroTemplates(tmp_path).template(Macro(GREET.replace("hello", "hi")))
    assert greeting(edited) == "hi SPARK"
    assert len(list(tmp_path.glob("*.code"))) == 2


def test_an_unreadable_entry_is_compiled_again_and_replaced(tmp_path):
    MacroTemplates(tmp_path).template(Macro(GREET))
    [entry] = tmp_path.glob("*.code")
    entry.write_bytes(b"not marshalled code")
    assert greeting(MacroTemplates(tmp_path).template(Macro(GREET))) == "hello SPARK"
    assert greeting(MacroTemplates(tmp_path).template(Macro(GREET))) == "hello SPARK"


def test_a_macro_that_does_not_compile_fails_as_in_dbt_and_keeps_nothing(tmp_path):
    with pytest.raises(CompilationError, match="greet"):
        MacroTemplates(tmp_path).template(Macro("{% macro greet(who) %}{{ who {% endmacro %}"))
    assert not list(tmp_path.iterdir())


def test_the_cache_is_off_with_an_empty_directory_or_dbt_macro_debugging(monkeypatch, tmp_path):
    monkeypatch.delenv("DBT_MACRO_DEBUGGING", raising=False)
    monkeypatch.setenv("DBT_ANALYZE_TEMPLATE_CACHE", str(tmp_path))
    assert cache_directory() == tmp_path
    monkeypatch.setenv("DBT_ANALYZE_TEMPLATE_CACHE", "")
    assert cache_directory() is None
    monkeypatch.delenv("DBT_ANALYZE_TEMPLATE_CACHE")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert cache_directory() == tmp_path / "dbt_analyze" / "templates"
    monkeypatch.setenv("DBT_MACRO_DEBUGGING", "1")
    assert cache_directory() is None


# In a new process, as each dbt invocation is: dbt's template cache, with the library registered,
# takes the package's macros from the directory (compiling is made to fail, so only a load passes)
# and compiles any other package's macro itself.
NEXT_PROCESS = textwrap.dedent("""
    import sys, jinja2
    import dbt_analyze  # registers, as dbt's plugin scan does
    from dbt_common.clients.jinja import template_cache

    class Macro:
        def __init__(self, package):
            self.package_name, self.name, self.unique_id = package, "greet", f"macro.{package}.greet"
            self.macro_sql = sys.argv[1]

    compile_macro = jinja2.Environment.compile
    jinja2.Environment.compile = lambda *args, **kwargs: sys.exit("compiled a cached macro")
    ours = template_cache.get_node_template(Macro("dbt_analyze"))
    jinja2.Environment.compile = compile_macro
    theirs = template_cache.get_node_template(Macro("other_package"))
    print(ours.module.dbt_macro__greet("a").strip(), theirs.module.dbt_macro__greet("b").strip())
""")


def test_the_next_dbt_process_loads_the_package_s_macros_and_compiles_the_rest(tmp_path):
    cache = tmp_path / "templates"
    MacroTemplates(cache).template(Macro(GREET))
    entries = sorted(cache.iterdir())
    env = {**os.environ, "DBT_ANALYZE_TEMPLATE_CACHE": str(cache)}
    env.pop("DBT_MACRO_DEBUGGING", None)
    done = subprocess.run([sys.executable, "-c", NEXT_PROCESS, GREET], env=env, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["hello", "A", "hello", "B"]
    assert sorted(cache.iterdir()) == entries  # the other package's macro is not kept
