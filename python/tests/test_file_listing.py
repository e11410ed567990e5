"""The Python file listing against the rules of Spark's (test_incremental.py compares the two on Spark)."""

import os

from dbt_analyze.file_listing import list_files


def write(path, text="x"):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


def test_specs_come_from_the_last_directories_or_the_branch(tmp_path):
    write(tmp_path / "t" / "y=2024" / "m=1" / "part-0", "abc")
    write(tmp_path / "t" / "y=2024" / "m=1" / "part-1", "de")
    write(tmp_path / "t" / "y=2024" / "m=2" / "_SUCCESS")
    write(tmp_path / "kept" / "part-0", "abcd")
    rows = list_files([{"table_index": 0, "location": f"file:{tmp_path / 't'}", "depth": 2},
                       {"table_index": 0, "location": f"file:{tmp_path / 'kept'}", "depth": 2, "spec": "y=2025/m=1"}])
    assert sorted(row[:4] for row in rows) == [(0, "y=2024/m=1", 2, 5), (0, "y=2025/m=1", 1, 4)]


def test_the_newest_modification_is_in_microseconds(tmp_path):
    write(tmp_path / "a")
    write(tmp_path / "b")
    os.utime(tmp_path / "a", ns=(0, 1_700_000_000_123_456_789))
    os.utime(tmp_path / "b", ns=(0, 1_600_000_000_000_000_000))
    assert list_files([{"table_index": 3, "location": f"file://{tmp_path}"}]) == [(3, "", 2, 2, "1700000000123000")]


def test_linked_directories_are_followed_and_missing_locations_left_to_spark(tmp_path):
    write(tmp_path / "elsewhere" / "part-0")
    (tmp_path / "t").mkdir()
    (tmp_path / "t" / "p=1").symlink_to(tmp_path / "elsewhere")
    assert [row[:3] for row in list_files([{"table_index": 0, "location": f"file:{tmp_path / 't'}", "depth": 1}])] == [(0, "p=1", 1)]
    assert list_files([{"table_index": 0, "location": f"file:{tmp_path / 'gone'}"}]) is None
