"""Statistics documents (``export_statistics``, ``import_statistics``) as files on the machine that
runs dbt.

>>> import tempfile, os
>>> path = dbt_analyze_write_text(None, os.path.join(tempfile.mkdtemp(), "d", "stats.json"), "{}")
>>> dbt_analyze_read_text(None, path)
'{}'
"""

from __future__ import annotations

from pathlib import Path
from typing import Any


def dbt_analyze_write_text(adapter: Any, path: str, text: str) -> str:
    target = Path(path).expanduser()
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(text, encoding="utf-8")
    return str(target.resolve())


def dbt_analyze_read_text(adapter: Any, path: str) -> str:
    target = Path(path).expanduser()
    if not target.is_file():
        raise FileNotFoundError(f"dbt_analyze: no statistics document at {target.resolve()}")
    return target.read_text(encoding="utf-8")
