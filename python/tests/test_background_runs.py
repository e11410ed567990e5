"""Batches of background runs (dbt_analyze.background): a free worker takes every waiting run of a
table not running, in submission order; a later run of a table waits for the one before it."""

from __future__ import annotations

import threading

from dbt_analyze.background import BackgroundRuns, run_each


def test_runs_pending_together_run_in_one_batch_and_a_table_waits_for_its_run():
    gate = threading.Event()
    batches: list[list[str]] = []

    def run_batch(jobs):
        gate.wait()
        batches.append([f"{job.key}:{job.payload()}" for job in jobs])
        run_each(jobs)

    runs = BackgroundRuns(workers=1, run_batch=run_batch)
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
