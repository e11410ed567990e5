"""The package's macros compiled once per machine, not once per dbt process.

dbt compiles a macro's Jinja into Python the first time a process calls it and keeps the template
for that process only. Every ``dbt build`` is a new process, and the package's macros are about
6,000 lines of Jinja that a run calls nearly all of: compiling them takes seconds of the Python
interpreter that dbt's threads share, in every build that runs the post-hook. So the code Jinja
compiles for a macro of this package is kept on disk, as Jinja's own bytecode cache keeps a
template's, and the next process loads it instead. Other packages' macros, dbt's included, are
compiled by dbt as always.

An entry is named by a digest of the macro's text and the versions of Python, Jinja and dbt's
Jinja environment, so an edited macro or an upgrade compiles anew; entries no longer named are
never read. The directory is ``$DBT_ANALYZE_TEMPLATE_CACHE`` if set (empty turns the cache off),
else ``dbt_analyze/templates`` under ``$XDG_CACHE_HOME`` (``~/.cache``). dbt's
``DBT_MACRO_DEBUGGING`` turns it off too, as it asks for the compiled source to be kept.

>>> import tempfile
>>> cache = MacroTemplates(Path(tempfile.mkdtemp()))
>>> class Macro:
...     package_name, name = "dbt_analyze", "greet"
...     macro_sql = "{% macro greet(who) %}hello {{ who }}{% endmacro %}"
>>> compiled = cache.template(Macro())  # compiled, and kept on disk
>>> loaded = MacroTemplates(cache.directory).template(Macro())  # as a new process would: loaded
>>> loaded.module.dbt_macro__greet("Spark").strip()  # dbt's parser prefixes a macro's name
'hello Spark'
>>> len(list(cache.directory.iterdir()))
1
"""

from __future__ import annotations

import hashlib
import marshal
import os
import sys
from importlib import metadata
from pathlib import Path
from typing import Any

PACKAGE = "dbt_analyze"


class MacroTemplates:
    """Templates of the package's macros, made from the code kept in ``directory``, else compiled
    and kept there (dbt's template cache keeps each in memory for the rest of the process)."""

    def __init__(self, directory: Path) -> None:
        import jinja2
        from dbt_common.clients.jinja import get_environment

        self.directory = directory
        # The environment dbt would make for each macro; none of its state depends on the macro.
        self.environment = get_environment()
        self.versions = f"{sys.version}|{jinja2.__version__}|{metadata.version('dbt-common')}"

    def template(self, macro: Any) -> Any:
        from dbt_common.clients.jinja import catch_jinja

        environment = self.environment
        path = self.directory / f"{self._digest(macro.macro_sql)}.code"
        code = self._load(path)
        if code is None:
            with catch_jinja(macro):
                code = environment.compile(macro.macro_sql)
            self._store(path, code)
        # What Environment.from_string does once it has the code.
        return environment.template_class.from_code(environment, code, environment.make_globals({}), None)

    def _digest(self, source: str) -> str:
        return hashlib.sha256(f"{self.versions}\0{source}".encode()).hexdigest()

    @staticmethod
    def _load(path: Path) -> Any:
        try:
            return marshal.loads(path.read_bytes())
        except (OSError, ValueError, EOFError, TypeError):
            return None  # absent, or written by another interpreter: compile it

    def _store(self, path: Path, code: Any) -> None:
        try:
            self.directory.mkdir(parents=True, exist_ok=True)
            partial = path.with_suffix(f".{os.getpid()}.partial")
            partial.write_bytes(marshal.dumps(code))
            os.replace(partial, path)  # whole or absent, for processes that read it at once
        except OSError:
            pass  # a read-only home: compiled again next time, as dbt does


def cache_directory() -> Path | None:
    """Where compiled templates are kept; None when the cache is off."""
    if os.environ.get("DBT_MACRO_DEBUGGING"):
        return None
    configured = os.environ.get("DBT_ANALYZE_TEMPLATE_CACHE")
    if configured is not None:
        return Path(configured) if configured else None
    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base) / PACKAGE / "templates"


def register() -> bool:
    """Have dbt's template cache take the package's macros from here; idempotent."""
    try:
        from dbt_common.clients.jinja import TemplateCache
    except ImportError:
        return False
    if getattr(TemplateCache.get_node_template, "_dbt_analyze", False):
        return True
    dbt_get_node_template = TemplateCache.get_node_template
    directory = cache_directory()
    if directory is None:
        return True
    templates = MacroTemplates(directory)

    def get_node_template(self: Any, node: Any) -> Any:
        if getattr(node, "package_name", None) != PACKAGE:
            return dbt_get_node_template(self, node)
        template = self.file_cache.get(node.macro_sql)
        if template is None:
            template = self.file_cache[node.macro_sql] = templates.template(node)
        return template

    get_node_template._dbt_analyze = True  # type: ignore[attr-defined]
    TemplateCache.get_node_template = get_node_template  # type: ignore[method-assign]
    return True
