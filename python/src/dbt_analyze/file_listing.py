"""A run's file listing of local tables, read by Python off the file system.

A run fingerprints each partition by its files (count, total length, newest modification). The
macros list them with a Spark query over the ``binaryFile`` source, which any connection can run;
on a session connection whose tables sit on the local file system, Python lists the same files
without a Spark job (``list_files``). It returns the rows that query returns, by the same rules:

- every file under the location, at any depth, but those Spark's file index hides: a file or
  directory whose name starts with ``.``, or with ``_`` and holds no ``=`` (``_SUCCESS``, a
  ``_temporary`` directory), or ends with ``._COPYING_`` (Spark descends into ``_metadata`` and
  ``_common_metadata`` directories, for Parquet's sake);
- the partition spec of a file is the path of its directory's last ``depth`` levels, or the
  branch's fixed ``spec`` (a partition kept outside its table's directory);
- the newest modification is in microseconds since the epoch, as text, as
  ``cast(unix_micros(max(modificationTime)) as string)`` gives it (Hadoop's local file system
  reports milliseconds).

>>> import os, tempfile
>>> root = tempfile.mkdtemp()
>>> for name in ["p=1/a.parquet", "p=1/_SUCCESS", "p=2/.a.crc", "p=2/b.parquet", "_temporary/0/c"]:
...     os.makedirs(os.path.dirname(os.path.join(root, name)), exist_ok=True)
...     _ = open(os.path.join(root, name), "w").write("xx")
>>> rows = list_files([{"table_index": 0, "location": "file:" + root, "depth": 1}])
>>> [(index, spec, count, size) for index, spec, count, size, _ in sorted(rows)]
[(0, 'p=1', 1, 2), (0, 'p=2', 1, 2)]
>>> list_files([{"table_index": 0, "location": "s3a://bucket/t", "depth": 0}]) is None
True
"""

from __future__ import annotations

import os
from typing import Any

from dbt_analyze.session_submission import is_session


def hidden(name: str, directory: bool = False) -> bool:
    """Whether Spark's file index leaves out a file (or a directory) of this name.

    >>> [hidden(n) for n in ["_SUCCESS", ".part.crc", "p=_x", "_p=1", "_metadata", "a._COPYING_", "part-0"]]
    [True, True, False, False, True, True, False]
    >>> hidden("_metadata", directory=True)
    False
    """
    excluded = (name.startswith("_") and "=" not in name) or name.startswith(".") or name.endswith("._COPYING_")
    return excluded and not (directory and name.startswith(("_common_metadata", "_metadata")))


def local_path(location: str) -> str | None:
    """The local directory of a ``file:`` location, or None for any other file system.

    >>> local_path("file:/data/analytics.db/t"), local_path("file:///data/t"), local_path("hdfs://nn/t")
    ('/data/analytics.db/t', '/data/t', None)
    """
    if not location.startswith("file:"):
        return None
    path = location[len("file:"):]
    return "/" + path.lstrip("/") if path.startswith("//") else path


def list_files(branches: list[dict[str, Any]]) -> list[tuple] | None:
    """The listing's rows ``(table_index, partition_spec, file_count, size_bytes, modified_at)`` of
    branches ``{table_index, location, depth, spec?}``, or None when a location is not a local
    directory that exists (then Spark lists, and tells a missing path apart)."""
    paths = [local_path(branch["location"]) for branch in branches]
    if any(path is None or not os.path.isdir(path) for path in paths):
        return None
    found: dict[tuple[int, str], list[int]] = {}
    for branch, root in zip(branches, paths):
        depth = branch.get("depth") or 0
        for directory, subdirectories, files in os.walk(root, followlinks=True):  # as Java's File does
            subdirectories[:] = [name for name in subdirectories if not hidden(name, directory=True)]
            if branch.get("spec") is not None:
                spec = branch["spec"]
            elif depth:
                levels = directory.split("/")
                spec = "/".join(levels[-depth:]) if len(levels) > depth else ""
            else:
                spec = ""
            for name in files:
                if hidden(name):
                    continue
                try:
                    status = os.stat(os.path.join(directory, name))
                except FileNotFoundError:  # removed since it was listed (a job's temporary file)
                    continue
                totals = found.setdefault((branch["table_index"], spec), [0, 0, 0])
                totals[0] += 1
                totals[1] += status.st_size
                totals[2] = max(totals[2], status.st_mtime_ns // 1_000_000)
    return [(index, spec, count, size, str(newest * 1000)) for (index, spec), (count, size, newest) in found.items()]


# The adapter methods of this concept (registered by dbt_analyze.adapter_methods).


def dbt_analyze_list_files(adapter: Any, branches: list[dict[str, Any]]) -> list[tuple] | None:
    return list_files(branches) if is_session(adapter) else None
