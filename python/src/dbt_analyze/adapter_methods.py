"""What the package's macros need from Python, as methods of dbt-spark's adapter.

Jinja in dbt cannot reach the JVM or the file system; adapter methods marked available can be
called from macros (``adapter.<name>(...)``). ``register()`` adds these to dbt-spark's adapter:

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

>>> register()
True
>>> from dbt.adapters.spark.impl import SparkAdapter
>>> "dbt_analyze_read_text" in SparkAdapter._available_
True
"""

from __future__ import annotations

import json
import re
import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any


def dbt_analyze_publish_statistics(adapter: Any, payload_json: str) -> str:
    from dbt_analyze.publish import publish_statistics
    from dbt_analyze.session_submission import is_session

    if not is_session(adapter):
        return "not a session connection"
    publish_statistics(_spark(adapter), json.loads(payload_json))
    return "published"


def _spark(adapter: Any) -> Any:
    """The session dbt-spark's connection uses (see ``profile_spark_session``)."""
    from dbt_analyze.session_submission import profile_spark_session

    return profile_spark_session(adapter.config.credentials)


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


def dbt_analyze_estimate_statistics(adapter: Any, payload_json: str) -> str:
    """payload: models (unique_id, schema, name, package_name, original_file_path, depends_on),
    statistics, rules (a mapping), rules_file, accuracy. Returns {rows, messages} as JSON."""
    from dbt_analyze.estimate import estimate_models
    from dbt_analyze.function_rules import FunctionRules

    payload = json.loads(payload_json)
    compiled_root = Path(adapter.config.project_root) / adapter.config.target_path / "compiled"
    models = []
    for model in payload["models"]:
        path = compiled_root / model["package_name"] / model["original_file_path"]
        sql = path.read_text(encoding="utf-8") if path.is_file() else None
        models.append({**model, "sql": sql, "columns": _described_columns(adapter, sql) if sql else None})
    extra = [Path(adapter.config.project_root) / payload["rules_file"]] if payload.get("rules_file") else []
    extra += [payload["rules"]] if payload.get("rules") else []
    rules = FunctionRules.load(extra, payload.get("accuracy") or "medium")
    rows, messages = estimate_models(models, payload.get("statistics", []), rules)
    return json.dumps({"rows": rows, "messages": messages})


def _described_columns(adapter: Any, sql: str) -> list[str] | None:
    """The names of a query's columns as Spark gives them (DESCRIBE QUERY analyzes it, runs
    nothing), or None when Spark cannot resolve it (an input not built yet)."""
    try:
        _, table = adapter.execute(f"describe query {sql.strip().rstrip(';')}", fetch=True)
    except Exception:  # noqa: BLE001 - the estimator then names the columns itself
        return None
    return [row[0] for row in table]


def _statement_error(error: Exception, sql: str) -> Exception:
    """A failed statement's error as dbt reports a database error, with the statement's start."""
    from dbt_common.exceptions import DbtDatabaseError

    return DbtDatabaseError(f"{error}\n(in: {' '.join(sql.split())[:300]})")


_PATH_NOT_FOUND = re.compile(r"\[PATH_NOT_FOUND\] Path does not exist: (.+?)\. SQLSTATE")


def missing_path(error: BaseException) -> str | None:
    """The path Spark's error names as not existing (``PATH_NOT_FOUND``), as the query gave it:
    from PySpark's error condition, else (a Thrift server's) from the error's text.

    >>> missing_path(Exception("[PATH_NOT_FOUND] Path does not exist: file:/data/t. SQLSTATE: 42K03"))
    'file:/data/t'
    >>> missing_path(Exception("[TABLE_OR_VIEW_NOT_FOUND] ...")) is None
    True
    """
    if callable(getattr(error, "getCondition", None)):
        return (error.getMessageParameters() or {}).get("path") if error.getCondition() == "PATH_NOT_FOUND" else None
    found = _PATH_NOT_FOUND.search(str(error))
    return found.group(1) if found else None


def dbt_analyze_run_concurrently(adapter: Any, statements: list[str], missing_paths: bool = False,
                                 settings: list[dict[str, Any]] | None = None) -> list[Any] | bool:
    """Runs statements that do not depend on each other (a merge's inserts, each into its own
    table, all reading one cached view; a plan's reads) at the same time in the session's Spark,
    and returns each statement's rows, in the statements' order. On the small inputs of a run a
    statement's time is mostly planning, job start and file commit, which overlap; Spark
    schedules the jobs' tasks side by side. Every statement runs to its end; then the first
    failure is raised. False (nothing run) when the connection is not a session.

    With ``missing_paths`` (file listings: Spark reads a table whose directory is gone as empty,
    but its ``binaryFile`` source stops at the path), a statement stopped at a missing path gives
    ``{"missing_path": path}`` instead of rows, and on other connections (Thrift) the statements
    run one by one through dbt's connection, so that the macros can list again without it.

    ``settings``, one dict per statement (a file listing's: how Spark lists directories and splits
    files; the statistics write's: how it shuffles), hold for that statement alone: a session runs
    it in a session of its own (``newSession``: the same application, its own settings), so that
    no other dbt thread's query meanwhile sees them. Each session caches the tables it read with
    their file lists, which the other's writes do not refresh: the session of its own forgets them
    before the statement, the main session after it (but for a file listing). Over Thrift, whose session is the
    connection's own, they are SET before a file listing and RESET after; other statements with
    settings run there as the server is set (False)."""
    from dbt_analyze.session_submission import is_session

    def outcome(run: Any, sql: str) -> Any:
        """The statement's rows, {"missing_path": path}, or its error."""
        try:
            return run(sql)
        except Exception as error:  # noqa: BLE001 - raised below, after the others have finished
            path = missing_path(error) if missing_paths else None
            return {"missing_path": path} if path else error

    settings = list(settings or []) + [{}] * (len(statements) - len(settings or []))
    session = is_session(adapter)
    if session:
        from dbt.adapters.events.logging import AdapterLogger

        spark = _spark(adapter)
        logger = AdapterLogger("dbt_analyze")

        at_once = f" at once with {len(statements) - 1} other statement(s)" if len(statements) > 1 else ""

        for _ in statements:
            count_statement()  # in the calling thread, whose run counts them

        def run(sql: str, own_settings: dict[str, Any]) -> list[tuple]:
            with_settings = f" with {json.dumps(own_settings)}" if own_settings else ""
            logger.debug(f"dbt_analyze: running{at_once}{with_settings}:\n{sql}")
            # A file listing reads paths and writes nothing: the main session may keep its tables.
            return _in_session(spark, own_settings, lambda session: [tuple(row) for row in session.sql(sql).collect()],
                               forget_after=not missing_paths)

        with ThreadPoolExecutor(max_workers=len(statements) or 1, thread_name_prefix="dbt_analyze") as pool:
            results = list(pool.map(lambda sql, own: outcome(lambda text: run(text, own), sql), statements, settings))
    elif missing_paths:
        def run_with(sql: str, own_settings: dict[str, Any]) -> list[tuple]:
            for key, value in own_settings.items():
                adapter.execute(f"set {key}={value}")
            try:
                return [tuple(row) for row in adapter.execute(sql, fetch=True)[1].rows]
            finally:
                for key in own_settings:
                    adapter.execute(f"reset {key}")

        results = [outcome(lambda text: run_with(text, own), sql) for sql, own in zip(statements, settings)]
    else:
        return False
    errors = [(sql, found) for sql, found in zip(statements, results) if isinstance(found, Exception)]
    if errors:
        sql, error = errors[0]
        raise _statement_error(error, sql) if session else error  # dbt's connection raised dbt's own error
    return results


def dbt_analyze_insert_observed(adapter: Any, relation: str, select: dict[str, Any], measures: dict[str, str],
                                settings: dict[str, Any] | None = None) -> dict[str, Any] | None:
    """Inserts the rows of ``select["sql"]`` into ``relation`` (as ``insert into relation select ...``)
    and returns ``measures`` ({name: aggregate SQL over those rows}) as Spark computed them while it
    wrote the rows (an ``Observation``): what a read of the rows after the write would give, without
    that read. ``settings`` hold for this statement alone, as in ``dbt_analyze_run_concurrently``.
    With ``select["in_two"]``, the same SELECT runs in its two halves: the rows of merged_sql are
    held in memory first (a local checkpoint) as the temporary view merged_view that rows_sql reads,
    and rows_sql is inserted: Spark analyzes each half against its own plan, not the whole SELECT
    at every pass of its analyzer (``select``: _statistics_select_sql's dict).
    {} when the rows are written but Spark has not handed over the measures (it does as the write
    ends), and None, with nothing run, when the connection is not a session: the macros read."""
    from dbt_analyze.session_submission import is_session

    if not is_session(adapter):
        return None
    from dbt.adapters.events.logging import AdapterLogger
    from pyspark.sql import Observation
    from pyspark.sql import functions as F

    in_two = bool(select.get("in_two"))
    sql = f"insert into {relation}\n{select['sql']}"
    AdapterLogger("dbt_analyze").debug(f"dbt_analyze: running with {json.dumps(settings or {})}, observing"
                                       f" {json.dumps(measures)}"
                                       f"{' in two halves' if in_two else ''}:\n{sql}")
    observation = Observation("dbt_analyze")

    def insert(session: Any) -> None:
        observed = [F.expr(expression).alias(name) for name, expression in measures.items()]
        rows_sql = select["sql"]
        if in_two:
            count_statement()
            merged = session.sql(select["merged_sql"]).localCheckpoint(eager=True)
            merged.createOrReplaceTempView(select["merged_view"])
            rows_sql = select["rows_sql"]
        try:
            count_statement()
            session.sql(rows_sql).observe(observation, *observed).write.insertInto(relation)
        finally:
            if in_two:
                session.catalog.dropTempView(select["merged_view"])

    try:
        _in_session(_spark(adapter), settings or {}, insert)
    except Exception as error:  # noqa: BLE001 - raised as dbt reports a database error
        raise _statement_error(error, sql) from error
    try:
        handed_over = observation._jo.future().isCompleted()
    except Exception:  # noqa: BLE001 - a Spark whose Observation has no future: its get waits for them
        handed_over = True
    return dict(observation.get) if handed_over else {}


def _in_session(spark: Any, settings: dict[str, Any], action: Any, forget_after: bool = True) -> Any:
    """``action(session)``: in ``spark`` itself, or with ``settings`` in a session of its own
    (``_session_with``), which forgets the tables it read before, and ``spark`` after
    (``forget_after``): each session caches tables with their file lists, which the other's writes
    do not refresh."""
    if not settings:
        return action(spark)
    own = _session_with(spark, settings)
    _forget_tables(own)
    try:
        return action(own)
    finally:
        if forget_after:
            _forget_tables(spark)


_SETTINGS_SESSIONS: dict[str, Any] = {}
_SETTINGS_LOCK = threading.Lock()


def _session_with(spark: Any, settings: dict[str, Any]) -> Any:
    """A session of ``spark``'s application with ``spark``'s settings plus ``settings``: made
    once per process and settings, its settings brought up to date with ``spark``'s each time
    (dbt's connection sets some at run time, as ANSI mode)."""
    key = json.dumps(settings, sort_keys=True)
    with _SETTINGS_LOCK:
        session = _SETTINGS_SESSIONS.get(key)
        if session is None:
            session = _SETTINGS_SESSIONS[key] = spark.newSession()
        own = session.conf.getAll
        for name, value in spark.conf.getAll.items():
            if own.get(name) != value and name not in settings and session.conf.isModifiable(name):
                session.conf.set(name, value)
        for name, value in settings.items():
            session.conf.set(name, str(value))
    return session


def _forget_tables(spark: Any) -> None:
    """Drops the session's cached table relations (and their file lists): its next read of a
    table resolves it and lists its files anew."""
    spark._jsparkSession.sessionState().catalog().invalidateAllCachedTables()


def dbt_analyze_parallelism(adapter: Any) -> int | None:
    """The session's Spark's default parallelism (its cores, locally); None on other connections."""
    from dbt_analyze.session_submission import is_session

    if not is_session(adapter):
        return None
    return int(_spark(adapter).sparkContext.defaultParallelism)


_SPARK_ERROR = re.compile(r"\[[A-Z][A-Z_.]*\][^\n]*")


def spark_error_line(error: BaseException) -> str:
    """The first line of the Spark error inside ``error`` (``[CONDITION] message``), else its text's first line.

    >>> spark_error_line(Exception("Runtime Error\\n  An error occurred while calling o1.sql.\\n: [KLL_INVALID_INPUT_SKETCH_BUFFER] Invalid call.\\n\\tat ..."))
    '[KLL_INVALID_INPUT_SKETCH_BUFFER] Invalid call.'
    """
    text = str(error)
    found = _SPARK_ERROR.search(text)
    return (
        found.group(0).strip()
        if found
        else next((line.strip() for line in text.splitlines() if line.strip()), type(error).__name__)
    )


def dbt_analyze_query_error(adapter: Any, sql: str) -> str:
    """Runs ``sql`` through dbt's connection and returns '' or the Spark error that stopped it, so
    a macro can refuse input with a message of its own (an imported document whose rows do not
    read as statistics) instead of a stack trace."""
    try:
        adapter.execute(sql, fetch=True)
    except Exception as error:  # noqa: BLE001 - the error is the answer
        return spark_error_line(error)
    return ""


def dbt_analyze_query_rows(adapter: Any, sql: str) -> dict[str, Any]:
    """Runs ``sql`` through dbt's connection: ``{"rows": [...]}``, or ``{"error": line}`` when Spark
    refuses it, so that a macro can take a missing table for an answer in one statement."""
    try:
        _, table = adapter.execute(sql, fetch=True)
    except Exception as error:  # noqa: BLE001 - the error is the answer
        return {"error": spark_error_line(error)}
    return {"rows": [tuple(row) for row in table.rows]}


_SENT = threading.local()


def count_statement() -> None:
    _SENT.count = getattr(_SENT, "count", 0) + 1


def dbt_analyze_statements(adapter: Any) -> int:
    """Spark statements sent by this thread so far: dbt's own (``add_query``) and the library's.

    >>> before = dbt_analyze_statements(None); count_statement(); dbt_analyze_statements(None) - before
    1
    """
    return getattr(_SENT, "count", 0)


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


def dbt_analyze_may_hold_old_files(adapter: Any, schema: str, table: str) -> bool:
    """False only when dbt-spark's session has no file list of the table: its catalog caches a
    table's relation, with its files, from the first read until a write or REFRESH TABLE. A scan
    then lists the files anew, and a REFRESH TABLE before it would be a statement for nothing."""
    from dbt_analyze.session_submission import is_session

    if not is_session(adapter):
        return True
    spark = _spark(adapter)
    key = spark._jvm.org.apache.spark.sql.catalyst.QualifiedTableName("spark_catalog", schema.lower(), table.lower())
    return spark._jsparkSession.sessionState().catalog().getCachedTable(key) is not None


def dbt_analyze_table_exists(adapter: Any, schema: str, table: str) -> bool | None:
    """Whether dbt-spark's session catalog has the table (no statement: a statement that fails
    makes pyspark log an ERROR line, alarming on a first run where the answer is simply no); None
    on other connections, which must ask with a statement."""
    from dbt_analyze.session_submission import is_session

    if not is_session(adapter):
        return None
    quoted = ".".join("`" + part.replace("`", "``") + "`" for part in (schema, table))
    return bool(_spark(adapter).catalog.tableExists(quoted))


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


def dbt_analyze_is_session(adapter: Any) -> bool:
    from dbt_analyze.session_submission import is_session

    return is_session(adapter)


def dbt_analyze_list_files(adapter: Any, branches: list[dict[str, Any]]) -> list[tuple] | None:
    from dbt_analyze.file_listing import list_files
    from dbt_analyze.session_submission import is_session

    return list_files(branches) if is_session(adapter) else None


def dbt_analyze_read_states(adapter: Any, tables: list, rows: list) -> dict[str, list]:
    from dbt_analyze.partition_states import read_states

    return read_states(tables, rows)


def dbt_analyze_partition_status(adapter: Any, partitions: list, listing: dict, states: dict, types: dict,
                                 native_top_k: list, sketches: str = "basic",
                                 top_k_tracked: dict | None = None) -> dict[str, str]:
    from dbt_analyze.partition_states import partition_status

    return partition_status(partitions, listing, states, types, native_top_k, sketches, top_k_tracked)


def dbt_analyze_submit(adapter: Any, key: str, model: str, macro_name: str, kwargs: dict[str, Any],
                       workers: int) -> bool:
    """Hands ``macro_name(**kwargs)`` (the package's macro: a post-hook's statistics run) to the
    process's background workers (see :mod:`dbt_analyze.background`) and returns True at once;
    False, with nothing run, when the connection is not dbt-spark's in-process session (over
    Thrift each dbt thread is a Spark session of its own: the hook runs where it is)."""
    from dbt_analyze.background import background_runs
    from dbt_analyze.session_submission import is_session

    if not is_session(adapter):
        return False

    def run() -> None:
        from dbt.adapters.events.logging import AdapterLogger

        from dbt_analyze.background import error_line

        try:
            with adapter.connection_named(f"dbt_analyze {model}"):
                # Spark's FAIR scheduler (spark.scheduler.mode FAIR) gives the build's jobs their share
                # beside the statistics' pool; under FIFO, the default, this is only a label.
                _spark(adapter).sparkContext.setLocalProperty("spark.scheduler.pool", "dbt_analyze")
                adapter.execute_macro(macro_name, project="dbt_analyze", kwargs=kwargs)
        except Exception as error:
            logger = AdapterLogger("dbt_analyze")
            logger.error(f"dbt_analyze: the statistics run of {model} failed: {error_line(error)}")
            logger.debug(f"dbt_analyze: the statistics run of {model} failed: {error!r}\n{error}")
            raise

    background_runs(workers).submit(key, model, run)
    return True


def dbt_analyze_await(adapter: Any, key: str | None = None) -> str:
    """Waits for the pending background run of ``key`` (``schema.table``, lower case), or of every
    table (None): a reader of statistics reads this build's, never the previous build's."""
    from dbt_analyze.background import current_runs

    runs = current_runs()
    if runs is not None:
        runs.wait(key)
    return ""


def dbt_analyze_finish_background(adapter: Any) -> list[dict[str, str]]:
    """Waits for every background run; the failures since the last call ({model, error})."""
    from dbt_analyze.background import current_runs

    runs = current_runs()
    return runs.finish() if runs is not None else []


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
)


def register() -> bool:
    """Add the methods to dbt-spark's adapter; False when dbt-spark is not installed."""
    try:
        from dbt.adapters.spark.impl import SparkAdapter
    except ImportError:
        return False
    for method in METHODS:
        setattr(SparkAdapter, method.__name__, method)
    _count_dbt_statements()
    # dbt's macro context exposes only the adapter methods listed when the class was created.
    SparkAdapter._available_ = SparkAdapter._available_ | {method.__name__ for method in METHODS}
    return True


def _count_dbt_statements() -> None:
    """Counts every statement dbt's connection sends (``run_query``, ``adapter.execute``)."""
    from dbt.adapters.spark.connections import SparkConnectionManager

    if getattr(SparkConnectionManager.add_query, "_dbt_analyze_counts", False):
        return
    add_query = SparkConnectionManager.add_query

    def counted(self: Any, *args: Any, **kwargs: Any) -> Any:
        count_statement()
        return add_query(self, *args, **kwargs)

    counted._dbt_analyze_counts = True  # type: ignore[attr-defined]
    SparkConnectionManager.add_query = counted
