"""Spark statements beside dbt's connection: several at once, an insert observed as it writes,
probes whose error is the answer, and a count of every statement a dbt thread sends.

The macros send most statements through dbt's connection (``run_query``). Where a run gains by
sending them otherwise (independent reads at once, a write that measures its own rows) they call
these methods; on connections that cannot (Thrift), the methods answer so and the macros fall
back to ``run_query``.

>>> missing_path(Exception("[PATH_NOT_FOUND] Path does not exist: file:/data/t. SQLSTATE: 42K03"))
'file:/data/t'
"""

from __future__ import annotations

import contextvars
import json
import re
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from typing import Any, Callable, Iterator

from dbt_analyze.session_submission import adapter_spark, is_session


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

        spark = adapter_spark(adapter)
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
    if not select.get("in_two"):
        return _insert_observed(adapter, relation, [], "", select["sql"], measures, settings)
    return _insert_observed(adapter, relation, [select["merged_sql"]], select["merged_view"], select["rows_sql"],
                            measures, settings)


def dbt_analyze_insert_together(adapter: Any, relation: str, held_sqls: list[str], held_view: str,
                                rows_sql: str, measures: dict[str, str],
                                settings: dict[str, Any] | None = None,
                                half_settings: list[dict[str, Any]] | None = None) -> dict[str, Any] | None:
    """Several runs' writes in one INSERT: each run's scan (``held_sqls``, a row of its states
    that carries its run and table) held in memory, all of them as the one temporary view
    ``held_view``, and ``rows_sql`` over it (which merges them and derives their rows) inserted
    and observed, as ``dbt_analyze_insert_observed`` does for one: Spark plans the merge and the
    rows' half, the heavy one, once for every run (``measures`` tell the runs apart).
    ``settings`` hold for that statement; ``half_settings``, one per held scan, for each scan
    (generated code or not, by its size)."""
    return _insert_observed(adapter, relation, held_sqls, held_view, rows_sql, measures, settings, half_settings)


_BEFORE_ROWS: contextvars.ContextVar[Callable[[], None] | None] = contextvars.ContextVar("before_rows", default=None)


@contextmanager
def rows_wait_for(ready: Callable[[], None]) -> Iterator[None]:
    """Within it, an insert (``dbt_analyze_insert_together``) holds its scans and then calls
    ``ready()`` before it writes its rows: what must be written first (a batch's ``started``
    events) goes out beside the scans, which only read; ``ready`` raising writes nothing."""
    token = _BEFORE_ROWS.set(ready)
    try:
        yield
    finally:
        _BEFORE_ROWS.reset(token)


def _insert_observed(adapter: Any, relation: str, merged_sqls: list[str], merged_view: str, rows_sql: str,
                     measures: dict[str, str], settings: dict[str, Any] | None,
                     half_settings: list[dict[str, Any]] | None = None) -> dict[str, Any] | None:
    """Inserts ``rows_sql``'s rows, observing ``measures``; with ``merged_sqls``, their rows first
    held in memory (each with its ``half_settings``, else ``settings``) and unioned as the
    temporary view ``merged_view`` that ``rows_sql`` reads."""
    if not is_session(adapter):
        return None
    from dbt.adapters.events.logging import AdapterLogger
    from pyspark.sql import Observation
    from pyspark.sql import functions as F

    halves_settings = half_settings or [settings or {}] * len(merged_sqls)
    sql = "\n".join(merged_sqls + [f"insert into {relation}\n{rows_sql}"])
    own_halves = "" if half_settings is None else f", its halves with {json.dumps(half_settings)}"
    AdapterLogger("dbt_analyze").debug(f"dbt_analyze: running with {json.dumps(settings or {})}{own_halves}, observing"
                                       f" {json.dumps(measures)}"
                                       f"{' in two halves' if merged_sqls else ''}:\n{sql}")
    observation = Observation("dbt_analyze")
    spark = adapter_spark(adapter)

    def insert(session: Any) -> None:
        observed = [F.expr(expression).alias(name) for name, expression in measures.items()]
        # A half of other settings than the rows' runs in their session, which forgets its tables first.
        by_settings: dict[str, Any] = {json.dumps(settings or {}, sort_keys=True): session}
        for own in halves_settings:
            key = json.dumps(own, sort_keys=True)
            if key not in by_settings:
                by_settings[key] = _session_with(spark, own)
                _forget_tables(by_settings[key])
        halves = [(merged_sql, by_settings[json.dumps(own, sort_keys=True)])
                  for merged_sql, own in zip(merged_sqls, halves_settings)]
        merged = None
        started = time.perf_counter()

        def hold(half: tuple[str, Any]) -> Any:
            merged_sql, own_session = half
            return own_session.sql(merged_sql).localCheckpoint(eager=True)

        for held in _each_at_once(hold, halves, _parallelism(session)):
            count_statement()
            if merged is None and held.sparkSession is not session:
                # The union is the rows' session's, whose temporary view the rows' half reads.
                merged = session.createDataFrame([], held.schema)
            merged = held if merged is None else merged.unionByName(held)
        if merged is not None:
            # One file of the runs' few rows, not one per run.
            merged.coalesce(1).createOrReplaceTempView(merged_view)
        halves = time.perf_counter()
        try:
            if _BEFORE_ROWS.get() is not None:
                _BEFORE_ROWS.get()()
            count_statement()
            session.sql(rows_sql).observe(observation, *observed).write.insertInto(relation)
            AdapterLogger("dbt_analyze").debug(f"dbt_analyze: {len(merged_sqls)} held in {halves - started:.2f} s,"
                                               f" the rows in {time.perf_counter() - halves:.2f} s")
        finally:
            if merged is not None:
                session.catalog.dropTempView(merged_view)

    try:
        _in_session(spark, settings or {}, insert)
    except Exception as error:  # noqa: BLE001 - raised as dbt reports a database error
        raise _statement_error(error, sql) from error
    try:
        handed_over = observation._jo.future().isCompleted()
    except Exception:  # noqa: BLE001 - a Spark whose Observation has no future: its get waits for them
        handed_over = True
    return dict(observation.get) if handed_over else {}


def _each_at_once(function: Any, items: list[Any], threads: int) -> list[Any]:
    """``function`` of each item, in order: several runs' halves at once, each mostly planning on the
    driver, one core each. One item runs in this thread, which carries the statement's Spark
    properties (its scheduler pool).

    >>> _each_at_once(abs, [-1, 2, -3], 2)
    [1, 2, 3]
    """
    if len(items) <= 1:
        return [function(item) for item in items]
    with ThreadPoolExecutor(max_workers=min(len(items), threads)) as pool:
        return list(pool.map(function, items))


def _parallelism(session: Any) -> int:
    return int(session.sparkContext.defaultParallelism)


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


def count_dbt_statements() -> None:
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
