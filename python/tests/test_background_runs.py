"""Batches of background runs (dbt_analyze.background): a free worker takes every waiting run of a
table not running, in submission order; a later run of a table waits for the one before it."""

from __future__ import annotations

import threading
import time

from dbt_analyze.background import BackgroundRuns, run_each


def test_runs_pending_together_run_in_one_batch_and_a_table_waits_for_its_run():
    gate = threading.Event()
    batches: list[list[str]] = []

    def run_batch(jobs):
        gate.wait()
        batches.append([f"{job.key}:{job.payload()}" for job in jobs])
        run_each(jobs)

    runs = BackgroundRuns(workers=1, write=run_batch)
    runs.submit("db.a", "model.p.a", lambda: 1)  # taken at once, held at the gate
    while not runs._running:
        pass
    for key, value in [("db.b", 2), ("db.c", 3), ("db.b", 4), ("db.a", 5)]:
        runs.submit(key, f"model.p.{key}", lambda value=value: value)
    gate.set()
    assert runs.finish() == []
    assert batches == [["db.a:1"], ["db.b:2", "db.c:3", "db.a:5"], ["db.b:4"]]


def test_a_failing_run_of_a_batch_fails_alone():
    runs = BackgroundRuns(workers=1)
    runs.submit("db.a", "model.p.a", lambda: 1 / 0)
    runs.submit("db.b", "model.p.b", lambda: 2)
    assert runs.finish() == [{"model": "model.p.a", "error": "division by zero"}]


def test_runs_submitted_close_together_wait_for_each_other_in_one_batch():
    batches: list[list[str]] = []

    def run_batch(jobs):
        batches.append([job.key for job in jobs])
        run_each(jobs)

    runs = BackgroundRuns(workers=2, write=run_batch, linger=1.0)
    for key in ("db.a", "db.b", "db.c"):
        runs.submit(key, f"model.p.{key}", lambda: None)
        time.sleep(0.2)
    while len(batches) < 1:  # the linger ends by itself, with no reader
        time.sleep(0.1)
    assert runs.finish() == []
    assert batches == [["db.a", "db.b", "db.c"]]


def test_a_reader_does_not_wait_out_the_linger():
    runs = BackgroundRuns(workers=1, linger=600.0)
    runs.submit("db.a", "model.p.a", lambda: 1)
    reader = threading.Thread(target=runs.wait, args=("db.a",))
    reader.start()
    reader.join(60)
    assert not reader.is_alive()  # it would wait the linger's ten minutes
    assert runs.finish() == []


def test_runs_are_prepared_as_they_come_and_written_together_after_the_linger():
    events: list[str] = []

    def prepare(job):
        if job.key == "db.bad":
            raise ValueError("no such column")
        events.append(f"prepare {job.key}")
        job.prepared = job.key.upper()

    def write(jobs):
        events.append("write " + ",".join(job.prepared for job in jobs))
        run_each(jobs)

    runs = BackgroundRuns(workers=1, prepare=prepare, write=write, linger=1.0)
    runs.submit("db.a", "model.p.a", lambda: None)
    deadline = time.monotonic() + 30
    while not events and time.monotonic() < deadline:
        time.sleep(0.05)
    assert events == ["prepare db.a"]  # at once, not after the linger
    for key in ("db.bad", "db.b"):
        runs.submit(key, f"model.p.{key}", lambda: None)
    assert runs.finish() == [{"model": "model.p.db.bad", "error": "no such column"}]
    assert events == ["prepare db.a", "prepare db.b", "write DB.A,DB.B"]
