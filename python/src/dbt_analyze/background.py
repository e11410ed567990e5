"""Statistics runs beside the build: a model's post-hook hands its run to a few worker threads of
dbt's own process and returns, and dbt goes on building the next models while Spark computes
the statistics (SQL Server's ``AUTO_UPDATE_STATISTICS_ASYNC``, for dbt).

Only on dbt-spark's in-process ``session`` connection: every dbt thread and every worker share
one SparkSession, whose scheduler runs their jobs side by side. Each worker opens a dbt
connection of its own and runs the run's macro in a macro context of its own (as
``run-operation`` does), so its statements never interleave with a model's.

- Runs of the same table never overlap: a run waits for the run of its table submitted before it.
- A run is prepared (``prepare``: its plan and reads, ``prepare_statistics_run``) as soon as a
  worker is free, while the build goes on; prepared runs are written together: once nothing is
  left to prepare and no run has come for ``linger`` seconds (or a reader waits), a worker takes
  every prepared run (of different tables) as one batch, and ``write`` may share statements
  between them (the statistics and events of unpartitioned tables' runs: ``write_statistics_runs``).
- ``wait(key)``: a reader (a data test, ``get_column_stats``) waits for the pending run of the
  table it reads; ``wait()`` for every one. A batch's own thread never waits for its runs.
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
import time
from collections.abc import Iterator
from contextlib import contextmanager
from concurrent.futures import Future, ThreadPoolExecutor, wait
from dataclasses import dataclass, field
from typing import Any, Callable

from dbt_analyze.session_submission import adapter_spark, is_session
from dbt_analyze.statements import spark_error_line

_CURRENT = threading.local()  # the keys of the runs a worker thread is running


@dataclass
class Job:
    """A submitted run: its table's key, its model, what runs it (``payload``: for ``run_each``, a
    callable), the context it was submitted in, what its prepare left for its write
    (``prepared``) and the statements it sent, and its outcome."""
    key: str
    model: str
    payload: Any
    context: contextvars.Context = field(default_factory=contextvars.copy_context)
    future: Future = field(default_factory=Future)
    prepared: Any = None
    statements: int = 0

    def settle(self, outcome: Callable[[], Any]) -> None:
        """The job's outcome: ``outcome()``'s value, or the error it raised."""
        try:
            self.future.set_result(outcome())
        except Exception as error:  # noqa: BLE001 - the run's failure is its outcome
            self.future.set_exception(error)


def run_each(jobs: list[Job]) -> None:
    """A batch written job by job: each payload called in the context it was submitted in."""
    for job in jobs:
        job.settle(lambda: job.context.run(job.payload))


class BackgroundRuns:
    """A pool of ``workers`` threads and the runs handed to it, by table key. ``prepare(job)``
    runs as soon as a worker is free (it may settle the job: a run that ends there, or fails);
    ``write`` takes a batch of prepared jobs of different tables and settles each."""

    def __init__(self, workers: int, write: Callable[[list[Job]], None] = run_each,
                 prepare: Callable[[Job], None] | None = None, batch_size: int = 16, linger: float = 0.0) -> None:
        self._pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="dbt_analyze_background")
        self._write = write
        self._prepare = prepare
        self._batch_size = batch_size
        self._linger = linger
        self._lock = threading.Lock()
        self._changed = threading.Condition(self._lock)  # notified by submits, prepares and readers
        self._last_submit = 0.0
        self._readers = 0  # threads waiting for runs: no batch lingers for more
        self._waiting: list[Job] = []  # submitted, not yet taken, in submission order
        self._preparing = 0  # jobs in a prepare
        self._prepared: list[Job] = []  # prepared, waiting for a write, in order
        self._running: set[str] = set()  # keys of the runs taken, until written
        self._latest: dict[str, Future] = {}  # each table's last submitted run
        self._submitted: list[Job] = []  # since the last finish

    def submit(self, key: str, model: str, payload: Any) -> None:
        """Runs ``payload`` in a batch, after the run submitted before it for the same ``key``."""
        job = Job(key, model, payload)
        with self._lock:
            self._waiting.append(job)
            self._latest[key] = job.future
            self._submitted.append(job)
            self._last_submit = time.monotonic()
            self._changed.notify_all()
        self._pool.submit(self._drain)

    def _take_one(self) -> Job | None:
        """The first waiting run of a table not running, now running; None if there is none.
        Called with the lock held."""
        for index, job in enumerate(self._waiting):
            if job.key not in self._running:
                self._running.add(job.key)
                self._preparing += 1
                return self._waiting.pop(index)
        return None

    def _may_write(self) -> bool:
        """Whether the prepared runs are written now (asked once no waiting run can be taken): a
        batch is full, or nothing is left to prepare and a reader waits or no run has been submitted for ``linger`` seconds (runs
        submitted close together, a build's models finishing side by side, go in one batch, whose
        write Spark plans once). Called with the lock held."""
        if len(self._prepared) >= self._batch_size:
            return True
        if self._preparing:
            return False
        return self._readers > 0 or time.monotonic() >= self._last_submit + self._linger

    def _next(self) -> tuple[Job | None, list[Job]]:
        """What a worker does next: a run to prepare (first), else a batch of prepared runs to
        write once they may be written (waiting until then); neither when nothing is left."""
        with self._lock:
            while True:
                if (job := self._take_one()) is not None:
                    return job, []
                if not self._prepared:
                    return None, []
                if self._may_write():
                    batch, self._prepared = self._prepared[:self._batch_size], self._prepared[self._batch_size:]
                    return None, batch
                left = self._last_submit + self._linger - time.monotonic()
                self._changed.wait(left if left > 0 and not self._preparing else None)

    def _drain(self) -> None:
        """Prepares waiting runs and writes prepared ones until nothing is left (a run left waiting
        for its table's run in a batch is taken once that batch is written)."""
        while True:
            job, batch = self._next()
            if job is not None:
                self._run_prepare(job)
            elif batch:
                self._run_write(batch)
            else:
                return

    def _run_prepare(self, job: Job) -> None:
        _CURRENT.keys = {job.key}
        try:
            if self._prepare is not None:
                self._prepare(job)
        except Exception as error:  # noqa: BLE001 - the run's failure is its outcome
            job.future.set_exception(error)
        finally:
            _CURRENT.keys = set()
            with self._lock:
                self._preparing -= 1
                if job.future.done():
                    self._running.discard(job.key)
                else:
                    self._prepared.append(job)
                self._changed.notify_all()

    def _run_write(self, batch: list[Job]) -> None:
        _CURRENT.keys = {job.key for job in batch}
        try:
            self._write(batch)
        except Exception as error:  # noqa: BLE001 - a failure outside any one run fails the batch's unsettled runs
            for job in batch:
                if not job.future.done():
                    job.future.set_exception(error)
        finally:
            for job in batch:
                if not job.future.done():
                    job.future.set_exception(RuntimeError("dbt_analyze: the run was never run"))
            _CURRENT.keys = set()
            with self._lock:
                self._running -= {job.key for job in batch}
                self._changed.notify_all()

    def wait(self, key: str | None = None) -> None:
        """Until the pending run of ``key`` (every pending run: None) has ended, however it ended."""
        with self._lock:
            if key is None:
                futures = [job.future for job in self._submitted]
            else:
                futures = [self._latest[key]] if key in self._latest else []
        if key is not None and key in getattr(_CURRENT, "keys", set()):
            return  # the run itself reads its table's statistics
        with self._lock:
            self._readers += 1
            self._changed.notify_all()
        try:
            wait(futures)
        finally:
            with self._lock:
                self._readers -= 1

    def finish(self) -> list[dict[str, str]]:
        """Waits for every run, and returns (and forgets) the failures since the last finish."""
        self.wait()
        with self._lock:
            submitted, self._submitted = self._submitted, []
            self._latest = {key: future for key, future in self._latest.items() if not future.done()}
        return [{"model": job.model, "error": error_line(job.future.exception())}
                for job in submitted if job.future.exception() is not None]


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


def background_runs(workers: int, linger: float = 0.0) -> BackgroundRuns:
    """The process's pool of statistics runs, made on first use with ``workers`` threads (kept for
    the process: a test suite runs many dbt invocations in one); ``linger``, the latest
    invocation's."""
    global _RUNS
    with _RUNS_LOCK:
        if _RUNS is None:
            _RUNS = BackgroundRuns(workers, write=write_statistics_runs, prepare=prepare_statistics_run,
                                   linger=linger)
        _RUNS._linger = linger
        return _RUNS


def current_runs() -> BackgroundRuns | None:
    return _RUNS


def prepare_statistics_run(job: Job) -> None:
    """A post-hook's statistics run (the job's payload: (adapter, the run's args)) up to its write
    (``_prepare_run``), on a dbt connection of its own, in the context it was submitted in, as
    soon as a worker is free, while the build goes on; only its write waits for its batch. Its
    ``started`` event (an unpartitioned table's) is kept for that write. A run that ends in its
    prepare (a dry run, an unchanged table) or fails is settled there."""
    from dbt_analyze.statements import dbt_analyze_statements

    adapter, args = job.payload
    with _connection(adapter, job.model):
        before = dbt_analyze_statements(adapter)
        prepared = _settle(job, lambda: job.context.run(_macro, adapter, "_prepare_run", args=args,
                                                        shares_events=True), final=False)
        if prepared is not None and prepared["done"]:
            job.future.set_result(prepared["summary"])
        elif prepared is not None:
            job.prepared, job.statements = prepared, dbt_analyze_statements(adapter) - before


def write_statistics_runs(jobs: list[Job]) -> None:
    """Prepared statistics runs (``prepare_statistics_run``) written on one dbt connection, in the
    invocation's context: the ``started`` events of the unpartitioned tables' runs in one
    INSERT (sent beside what the statistics' write renders and reads first), their statistics in
    one INSERT where they can (``_write_runs_together``: the rows of
    every run derived by one statement, which Spark plans once, not once per run; planning is
    most of a small table's run in a fresh process), the other runs' each alone
    (``_write_run``), and then their ``succeeded`` events in one INSERT (``_finish_run`` each).
    A killed batch leaves each table's statistics as they were, and its finished batch shows them
    all at once. A run that fails fails alone; a shared INSERT of events that fails fails the
    runs it held."""
    adapter = jobs[0].payload[0]
    with _connection(adapter, jobs[0].model if len(jobs) == 1 else f"{len(jobs)} models"):
        jobs[0].context.run(_write_in_phases, adapter, jobs)


@contextmanager
def _connection(adapter: Any, name: str) -> Iterator[None]:
    """A dbt connection of this worker's, whose Spark jobs go to the package's scheduler pool."""
    with adapter.connection_named(f"dbt_analyze {name}"):
        # Spark's FAIR scheduler (spark.scheduler.mode FAIR) gives the build's jobs their share
        # beside the statistics' pool; under FIFO, the default, this is only a label.
        adapter_spark(adapter).sparkContext.setLocalProperty("spark.scheduler.pool", "dbt_analyze")
        yield


def _macro(adapter: Any, name: str, **kwargs: Any) -> Any:
    return adapter.execute_macro(name, project="dbt_analyze", kwargs=kwargs)


def _write_in_phases(adapter: Any, jobs: list[Job]) -> None:
    def macro(name: str, **kwargs: Any) -> Any:
        return _macro(adapter, name, **kwargs)

    # The runs' first write. Each prepare checked for a compaction's block, maybe long before;
    # compact_statistics waits only so long for runs to show their `started` events. It goes out
    # beside the rendering of the statistics' write and its scans, which only read.
    started = _beside(adapter, "started events", lambda: _shared_events(
        macro, [(job, job.prepared) for job in jobs], "started_row", check="_refuse_if_compacting"))
    # Runs write together with those of the same sketches: a basic run's rows derive no arrays.
    together: dict[bool, list[tuple[Job, dict]]] = {}
    alone: list[tuple[Job, dict]] = []
    for job in jobs:
        if macro("_writes_together", prepared=job.prepared):
            together.setdefault(bool(job.prepared["with_sketch_statistics"]), []).append((job, job.prepared))
        else:
            alone.append((job, job.prepared))
    written = []
    for runs in together.values():
        if len(runs) < 2:
            alone += runs
        else:
            written += _write_together(adapter, macro, runs, started)
    for job, prepared in _left(alone, started()):
        # The check for a compaction's block and the shared started events.
        _count_statements_from(adapter, job, prepared, 2 if prepared["started_row"] else 0)
        if _settle(job, lambda: (macro("_write_run", prepared=prepared), True)[1], final=False):
            written.append((job, prepared))
    for job, prepared in _shared_events(macro, written, "succeeded_row"):
        _settle(job, lambda: macro("_finish_run", prepared=prepared))


def _beside(adapter: Any, name: str, work: Callable[[], Any]) -> Callable[[], Any]:
    """``work()`` begun in a thread of its own, on a dbt connection of its own, in this context and
    for this thread's runs; the function returned waits for its value."""
    context, outcome, keys = contextvars.copy_context(), Future(), getattr(_CURRENT, "keys", set())

    def run() -> None:
        _CURRENT.keys = keys
        try:
            with _connection(adapter, name):
                outcome.set_result(context.run(work))
        except BaseException as error:  # noqa: BLE001 - handed to the waiting thread
            outcome.set_exception(error)

    threading.Thread(target=run, name=f"dbt_analyze {name}", daemon=True).start()
    return outcome.result


def _left(runs: list[tuple[Job, dict]], kept: list[tuple[Job, dict]]) -> list[tuple[Job, dict]]:
    """The runs that are in ``kept`` (the others failed)."""
    kept_jobs = {id(job) for job, _ in kept}
    return [(job, prepared) for job, prepared in runs if id(job) in kept_jobs]


def _write_together(adapter: Any, macro: Callable[..., Any], runs: list[tuple[Job, dict]],
                    started: Callable[[], list[tuple[Job, dict]]]) -> list[tuple[Job, dict]]:
    """The runs' statistics in one INSERT (``_write_runs_together``), its rows written once
    ``started()`` (their started events) has; else, when it fails (and so wrote nothing), each
    run's alone, so that a run that fails fails alone, with its own error; the runs written."""
    from dbt.adapters.events.logging import AdapterLogger

    from dbt_analyze.statements import rows_wait_for

    for job, prepared in runs:
        # The check for a compaction's block and the shared started events, its held scan and the
        # shared write, of the batch's scans and write still to come (len(runs) + 1).
        _count_statements_from(adapter, job, prepared, 2 + 1 + 1 - (len(runs) + 1))

    def events_written() -> None:
        if len(_left(runs, started())) < len(runs):
            raise RuntimeError("the runs' started events were not written")

    try:
        with rows_wait_for(events_written):
            together = macro("_write_runs_together", prepareds=[prepared for _, prepared in runs])
    except Exception as error:  # noqa: BLE001 - written again one by one
        together = None
        runs = _left(runs, started())
        if runs:
            AdapterLogger("dbt_analyze").info(f"dbt_analyze: the statistics of {len(runs)} runs could not be written"
                                              f" together ({error_line(error)}); each is written alone")
    written = []
    for index, (job, prepared) in enumerate(runs):
        write = (lambda: macro("_write_run", prepared=prepared)) if together is None else (
            lambda: macro("_after_write", prepared=prepared, written=together["written"][index],
                          scan_started=together["started"]))
        if _settle(job, lambda: (write(), True)[1], final=False):
            written.append((job, prepared))
    return written


def _count_statements_from(adapter: Any, job: Job, prepared: dict, batch_statements: int) -> None:
    """Where the run's statement count (its `succeeded` event's) starts: its prepare's statements
    and ``batch_statements`` of the batch's so far count as its own."""
    from dbt_analyze.statements import dbt_analyze_statements

    prepared["run"]["statements_at_start"] = dbt_analyze_statements(adapter) - job.statements - batch_statements


def _shared_events(macro: Callable[..., Any], runs: list[tuple[Job, dict]], row: str,
                   check: str | None = None) -> list[tuple[Job, dict]]:
    """Writes the runs' event rows (``prepared[row]``, where set) in one INSERT, after the macro
    ``check`` (if any); the runs left (those whose INSERT or check failed are settled with its
    error)."""
    rows = [prepared[row] for _, prepared in runs if prepared.get(row)]
    if not rows:
        return runs
    try:
        if check:
            macro(check)
        macro("_write_events", rows=rows)
    except Exception as error:  # noqa: BLE001 - the runs it held fail with it
        for job, prepared in runs:
            if prepared.get(row):
                _fail(job, error)
        return [(job, prepared) for job, prepared in runs if not prepared.get(row)]
    return runs


def _settle(job: Job, outcome: Callable[[], Any], final: bool = True) -> Any:
    """``outcome()``'s value; final: the job's outcome. A failure settles the job, logged with its
    model, and gives None."""
    try:
        value = outcome()
    except Exception as error:  # noqa: BLE001 - the run's failure is its outcome
        _fail(job, error)
        return None
    if final:
        job.future.set_result(value)
    return value


def _fail(job: Job, error: BaseException) -> None:
    """The job failed with ``error``: logged with its model, and its outcome."""
    from dbt.adapters.events.logging import AdapterLogger

    logger = AdapterLogger("dbt_analyze")
    logger.error(f"dbt_analyze: the statistics run of {job.model} failed: {error_line(error)}")
    logger.debug(f"dbt_analyze: the statistics run of {job.model} failed: {error!r}\n{error}")
    job.future.set_exception(error)


# The adapter methods of this concept (registered by dbt_analyze.adapter_methods).


def dbt_analyze_submit(adapter: Any, key: str, model: str, args: dict[str, Any], workers: int,
                       linger: float = 0.0) -> bool:
    """Hands a post-hook's statistics run (``_run_analyze``'s ``args``) to the process's background
    workers (see :mod:`dbt_analyze.background`) and returns True at once; False, with nothing
    run, when the connection is not dbt-spark's in-process session (over Thrift each dbt thread
    is a Spark session of its own: the hook runs where it is)."""
    if not is_session(adapter):
        return False
    background_runs(workers, linger).submit(key, model, (adapter, args))
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
