"""What the package's macros need from Python, as methods of dbt-spark's adapter.

Jinja in dbt cannot reach the JVM or the file system; adapter methods marked available can be
called from macros (``adapter.<name>(...)``). ``register()`` adds these to dbt-spark's adapter;
each lives beside the concept it serves (statements, catalog, per_process, background, publish,
documents, estimate, file_listing, partition_states, session_submission):

- ``dbt_analyze_publish_statistics(payload_json)``: into Spark's catalog (session connections);
  returns ``'published'`` or why not.
- ``dbt_analyze_write_text(path, text)`` / ``dbt_analyze_read_text(path)``: statistics documents
  of ``export_statistics`` and ``import_statistics``, on the machine that runs dbt.
- ``dbt_analyze_estimate_statistics(payload_json)``: estimates of models' column statistics from
  their compiled SQL (``target/compiled``) and their inputs' statistics; see
  :mod:`dbt_analyze.estimate`.
- ``dbt_analyze_run_concurrently(statements, missing_paths=False, settings=None)``: independent
  statements at once on the session's Spark (session connections), returning each one's rows;
  False elsewhere, and the macros run them one by one. With ``missing_paths`` (file listings), a
  statement that Spark stops at a path that does not exist returns ``{"missing_path": path}``
  instead, on any connection; ``settings`` are Spark SQL settings of each statement, for it alone.
- ``dbt_analyze_insert_observed(relation, select, measures, settings=None)``: inserts a
  query's rows (in its two halves where the query says so) and returns aggregates of them taken
  while they were written (session connections); None elsewhere, and the macros insert, then read.
- ``dbt_analyze_insert_together(relation, held_sqls, held_view, rows_sql, measures, settings=None,
  half_settings=None)``: several runs' writes as one INSERT, their scans held and unioned, the
  merge and the rows' half planned once (session connections); None elsewhere.
- ``dbt_analyze_parallelism()``: the session's Spark's default parallelism; None elsewhere.
- ``dbt_analyze_query_rows(sql)``: runs ``sql``; ``{"rows": [...]}``, or ``{"error": ...}`` with the
  Spark error that stopped it (a probe whose failure is an answer: a table that is not there).
- ``dbt_analyze_statements()``: how many Spark statements this dbt thread has sent (a run records
  its own count).
- ``dbt_analyze_one_at_a_time(key, macro, *args)``: ``macro(*args)`` while no other dbt thread of
  this process runs a macro under the same key (first use of the statistics tables).
- ``dbt_analyze_query_error(sql)``: runs ``sql``; '' or the Spark error that stopped it.
- ``dbt_analyze_first_time(key)``: True only the first time this process asks with ``key`` (a
  hint said once per dbt invocation, not once per model).
- ``dbt_analyze_may_hold_old_files(schema, table)``: whether Spark may scan the table through a file
  list it kept (a session whose catalog caches the table's relation; any Thrift connection).
- ``dbt_analyze_once(key, macro, *args)``: ``macro(*args)``'s result, computed once per process and
  ``key`` (facts of the engine that a process does not see change, as its sketch functions; what
  a model's data tests read, once per dbt invocation).
- ``dbt_analyze_is_session()``: whether the connection is dbt-spark's in-process session, one
  Spark session for all dbt threads (a Thrift connection is a Spark session of its own).
- ``dbt_analyze_list_files(branches)``: a run's file listing, listed by Python where the tables
  are local directories of a session's Spark (see :mod:`dbt_analyze.file_listing`); None elsewhere,
  and the macros list with Spark.
- ``dbt_analyze_read_states(tables, rows)`` / ``dbt_analyze_partition_status(partitions, listing,
  states, types, native_top_k, sketches, top_k_tracked)``: the states read's rows as each table's partition states,
  and each partition's status against its files (see :mod:`dbt_analyze.partition_states`).
- ``dbt_analyze_choose_column_groups(payload_json)``: the column groups of a table that the models
  reading it group, deduplicate or join on (see :mod:`dbt_analyze.column_groups`).

>>> register()
True
>>> from dbt.adapters.spark.impl import SparkAdapter
>>> "dbt_analyze_read_text" in SparkAdapter._available_
True
"""

from __future__ import annotations

from dbt_analyze.background import dbt_analyze_await, dbt_analyze_finish_background, dbt_analyze_submit
from dbt_analyze.catalog import dbt_analyze_may_hold_old_files, dbt_analyze_parallelism, dbt_analyze_table_exists
from dbt_analyze.documents import dbt_analyze_read_text, dbt_analyze_write_text
from dbt_analyze.estimate import dbt_analyze_estimate_statistics
from dbt_analyze.column_groups import dbt_analyze_choose_column_groups
from dbt_analyze.file_listing import dbt_analyze_list_files
from dbt_analyze.partition_states import dbt_analyze_partition_status, dbt_analyze_read_states
from dbt_analyze.per_process import dbt_analyze_first_time, dbt_analyze_once, dbt_analyze_one_at_a_time
from dbt_analyze.publish import dbt_analyze_publish_statistics
from dbt_analyze.session_submission import dbt_analyze_is_session
from dbt_analyze.statements import (
    count_dbt_statements,
    dbt_analyze_insert_observed,
    dbt_analyze_insert_together,
    dbt_analyze_query_error,
    dbt_analyze_query_rows,
    dbt_analyze_run_concurrently,
    dbt_analyze_statements,
)

METHODS = (
    dbt_analyze_submit,
    dbt_analyze_await,
    dbt_analyze_finish_background,
    dbt_analyze_publish_statistics,
    dbt_analyze_write_text,
    dbt_analyze_read_text,
    dbt_analyze_estimate_statistics,
    dbt_analyze_run_concurrently,
    dbt_analyze_insert_observed,
    dbt_analyze_insert_together,
    dbt_analyze_parallelism,
    dbt_analyze_query_rows,
    dbt_analyze_statements,
    dbt_analyze_one_at_a_time,
    dbt_analyze_first_time,
    dbt_analyze_once,
    dbt_analyze_may_hold_old_files,
    dbt_analyze_query_error,
    dbt_analyze_is_session,
    dbt_analyze_table_exists,
    dbt_analyze_list_files,
    dbt_analyze_read_states,
    dbt_analyze_partition_status,
    dbt_analyze_choose_column_groups,
)


def register() -> bool:
    """Add the methods to dbt-spark's adapter; False when dbt-spark is not installed."""
    try:
        from dbt.adapters.spark.impl import SparkAdapter
    except ImportError:
        return False
    for method in METHODS:
        setattr(SparkAdapter, method.__name__, method)
    count_dbt_statements()
    # dbt's macro context exposes only the adapter methods listed when the class was created.
    SparkAdapter._available_ = SparkAdapter._available_ | {method.__name__ for method in METHODS}
    return True
