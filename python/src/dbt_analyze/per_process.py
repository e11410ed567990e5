"""What dbt's threads in one process share: a lock per key, results computed once, hints said once.

>>> dbt_analyze_first_time(None, "doc"), dbt_analyze_first_time(None, "doc")
(True, False)
"""

from __future__ import annotations

import threading
from typing import Any


_LOCKS: dict[str, threading.RLock] = {}


_LOCKS_LOCK = threading.Lock()


def dbt_analyze_one_at_a_time(adapter: Any, key: str, macro: Any, *args: Any) -> Any:
    """Calls ``macro(*args)`` (a dbt macro, or any callable) holding the process-wide lock named
    ``key``, and returns its result. dbt runs models on threads of one process, so this is how
    the package's macros keep two threads from creating the same tables at once.

    >>> dbt_analyze_one_at_a_time(None, "example", lambda a, b: a + b, 1, 2)
    3
    """
    with _LOCKS_LOCK:
        lock = _LOCKS.setdefault(key, threading.RLock())
    with lock:
        return macro(*args)


_ONCE: dict[str, Any] = {}


def dbt_analyze_once(adapter: Any, key: str, macro: Any, *args: Any) -> Any:
    """``macro(*args)`` the first time this process asks with ``key``; its result after (a dbt
    thread asking meanwhile waits for it).

    >>> dbt_analyze_once(None, "example", lambda: [1]), dbt_analyze_once(None, "example", lambda x: [x], 2)
    ([1], [1])
    """
    with _LOCKS_LOCK:
        lock = _LOCKS.setdefault("once:" + key, threading.RLock())
    with lock:
        if key not in _ONCE:
            _ONCE[key] = macro(*args)
        return _ONCE[key]


_ASKED: set[str] = set()


def dbt_analyze_first_time(adapter: Any, key: str) -> bool:
    """True the first time this process asks with ``key``, False after (dbt's threads included).

    >>> dbt_analyze_first_time(None, "example"), dbt_analyze_first_time(None, "example")
    (True, False)
    """
    with _LOCKS_LOCK:
        first = key not in _ASKED
        _ASKED.add(key)
    return first
