"""Statistics runs beside the build: a model's post-hook hands its run to a few worker threads of
dbt's own process and returns, and dbt goes on building the next models while Spark computes
the statistics (SQL Server's ``AUTO_UPDATE_STATISTICS_ASYNC``, for dbt).

Only on dbt-spark's in-process ``session`` connection: every dbt thread and every worker share
one SparkSession, whose scheduler runs their jobs side by side. Each worker opens a dbt
connection of its own and runs the run's macro in a macro context of its own (as
``run-operation`` does), so its statements never interleave with a model's.

- Runs of the same table never overlap: a run waits for the run of its table submitted before it.
- ``wait(key)``: a reader (a data test, ``get_column_stats``) waits for the pending run of the
  table it reads; ``wait()`` for every one. A run's own thread never waits for itself.
- ``finish()``: every pending run, waited for; the failures since the last ``finish``, each with
  its model and the first line of its error (the package's on-run-end hook fails the invocation
  with them).

>>> runs = BackgroundRuns(workers=2)
>>> runs.submit("db.t", "model.p.t", lambda: 1 / 0)
>>> runs.submit("db.u", "model.p.u", lambda: None)
>>> runs.finish()
[{'model': 'model.p.t', 'error': 'division by zero'}]
>>> runs.finish()
[]
"""

from __future__ import annotations

import contextvars
import threading
from concurrent.futures import Future, ThreadPoolExecutor, wait
from typing import Any, Callable

from dbt_analyze.session_submission import adapter_spark, is_session
from dbt_analyze.statements import spark_error_line

_CURRENT = threading.local()  # the key of the run a worker thread is running


class BackgroundRuns:
    """A pool of ``workers`` threads and the runs handed to it, by table key."""

    def __init__(self, workers: int) -> None:
        self._pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="dbt_analyze_background")
        self._lock = threading.Lock()
        self._latest: dict[str, Future] = {}  # each table's last submitted run
        self._submitted: list[tuple[str, Future]] = []  # (model, run) since the last finish

    def submit(self, key: str, model: str, run: Callable[[], Any]) -> None:
        """Runs ``run()`` on a worker, after the run submitted before it for the same ``key``."""
        # dbt keeps its invocation's state in context variables, which a new thread does not inherit
        context = contextvars.copy_context()
        with self._lock:
            before = self._latest.get(key)
            future = self._pool.submit(self._run, key, lambda: context.run(run), before)
            self._latest[key] = future
            self._submitted.append((model, future))

    @staticmethod
    def _run(key: str, run: Callable[[], Any], before: Future | None) -> Any:
        if before is not None:
            wait([before])  # FIFO: it started before this one, so this waits on a running run, never a queued one
        _CURRENT.key = key
        try:
            return run()
        finally:
            _CURRENT.key = None

    def wait(self, key: str | None = None) -> None:
        """Until the pending run of ``key`` (every pending run: None) has ended, however it ended."""
        with self._lock:
            if key is None:
                futures = [future for _, future in self._submitted]
            else:
                futures = [self._latest[key]] if key in self._latest else []
        if key is not None and key == getattr(_CURRENT, "key", None):
            return  # the run itself reads its table's statistics
        wait(futures)

    def finish(self) -> list[dict[str, str]]:
        """Waits for every run, and returns (and forgets) the failures since the last finish."""
        self.wait()
        with self._lock:
            submitted, self._submitted = self._submitted, []
            self._latest = {key: future for key, future in self._latest.items() if not future.done()}
        return [{"model": model, "error": error_line(future.exception())}
                for model, future in submitted if future.exception() is not None]


def error_line(error: BaseException) -> str:
    """What a person reads of a run's failure: the package's own message (``dbt_analyze: ...``),
    else Spark's error (``spark_error_line``).

    >>> error_line(RuntimeError("Compilation Error in macro _run_analyze\\n  dbt_analyze: unknown column 'x'\\n"))
    "dbt_analyze: unknown column 'x'"
    >>> error_line(Exception("An error occurred\\n: [TABLE_OR_VIEW_NOT_FOUND] The table `t` cannot be found.\\n\\tat ..."))
    '[TABLE_OR_VIEW_NOT_FOUND] The table `t` cannot be found.'
    """
    own = (line.strip() for line in str(error).splitlines() if line.strip().startswith("dbt_analyze:"))
    return next(own, None) or spark_error_line(error)


_RUNS: BackgroundRuns | None = None
_RUNS_LOCK = threading.Lock()


def background_runs(workers: int) -> BackgroundRuns:
    """The process's pool, made on first use with ``workers`` threads (kept for the process: a
    test suite runs many dbt invocations in one)."""
    global _RUNS
    with _RUNS_LOCK:
        if _RUNS is None:
            _RUNS = BackgroundRuns(workers)
        return _RUNS


def current_runs() -> BackgroundRuns | None:
    return _RUNS


# The adapter methods of this concept (registered by dbt_analyze.adapter_methods).


def dbt_analyze_submit(adapter: Any, key: str, model: str, macro_name: str, kwargs: dict[str, Any],
                       workers: int) -> bool:
    """Hands ``macro_name(**kwargs)`` (the package's macro: a post-hook's statistics run) to the
    process's background workers (see :mod:`dbt_analyze.background`) and returns True at once;
    False, with nothing run, when the connection is not dbt-spark's in-process session (over
    Thrift each dbt thread is a Spark session of its own: the hook runs where it is)."""
    if not is_session(adapter):
        return False

    def run() -> None:
        from dbt.adapters.events.logging import AdapterLogger

        try:
            with adapter.connection_named(f"dbt_analyze {model}"):
                # Spark's FAIR scheduler (spark.scheduler.mode FAIR) gives the build's jobs their share
                # beside the statistics' pool; under FIFO, the default, this is only a label.
                adapter_spark(adapter).sparkContext.setLocalProperty("spark.scheduler.pool", "dbt_analyze")
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
    runs = current_runs()
    if runs is not None:
        runs.wait(key)
    return ""


def dbt_analyze_finish_background(adapter: Any) -> list[dict[str, str]]:
    """Waits for every background run; the failures since the last call ({model, error})."""
    runs = current_runs()
    return runs.finish() if runs is not None else []
