"""`make worker`, started as the README gives it, keeps working through a Redis that stops while a task runs: the
worker reconnects, or exits with an error and is started again, and the job finishes once. Ctrl+C then stops
it all. On a Redis of the test's own (on another port), so that nothing else loses its broker."""
from __future__ import annotations

import shutil
import sqlite3
import subprocess
import sys
import time

import pytest

from tests.started import ROOT, Started, free_port, newcomer_env, start, wait_for

pytestmark = [pytest.mark.slow,
              pytest.mark.skipif(shutil.which("redis-server") is None, reason="needs redis-server")]
ISSUES = 60_000
SEND = """
from ingest.models import IngestRun, Source
from ingest.services import runs
from ingest.services.work import ingest_task
source = Source.objects.create(full_name="o/r", kind="toolkit")
run = runs.create_run(source, IngestRun.Kind.FILE, file_path={path!r})
ingest_task.delay(run.pk)
"""


def _redis(port: int, tmp_path) -> Started:
    return start(["redis-server", "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"],
                 tmp_path, newcomer_env(), tmp_path / f"redis-{time.monotonic_ns()}.log")


def _one(db, sql: str):
    with sqlite3.connect(db, timeout=30) as connection:
        row = connection.execute(sql).fetchone()
    return row[0] if row else None


def test_a_worker_that_loses_redis_mid_task_comes_back_and_the_job_finishes_once(tmp_path):
    port = free_port()
    db = tmp_path / "db.sqlite3"
    env = newcomer_env(REDIS_URL=f"redis://127.0.0.1:{port}/0", DATABASE_URL=f"sqlite:///{db}",
                       JOB_HEARTBEAT_STALE_SECONDS="20")
    subprocess.run([sys.executable, "manage.py", "migrate", "-v0"], cwd=ROOT, env=env, check=True, timeout=300)
    path = tmp_path / "issues.jsonl"
    path.write_text("\n".join(f'{{"number": {n}, "title": "Issue {n}", "body": "{"CUDA out of memory " * 20}"}}'
                              for n in range(1, ISSUES + 1)))
    redis = _redis(port, tmp_path)
    worker = start(["make", "worker"], ROOT, env, tmp_path / "make-worker.log")
    try:
        wait_for("worker's heartbeat", lambda: _one(db, "SELECT count(*) FROM concord_workerbeat"), 120, worker)
        subprocess.run([sys.executable, "manage.py", "shell", "-c", SEND.format(path=str(path))], cwd=ROOT,
                       env=env, check=True, timeout=120)
        wait_for("running import", lambda: _one(db, "SELECT status FROM ingest_ingestrun") == "running", 120,
                 worker, every=0.1)
        redis.ctrl_c()  # Redis stops while the task runs
        time.sleep(8)
        redis = _redis(port, tmp_path)  # and comes back on the same port
        wait_for("import's end", lambda: _one(db, "SELECT status FROM ingest_ingestrun") in {"succeeded", "failed"},
                 180, worker)
        finished = _one(db, "SELECT finished_at FROM ingest_ingestrun")
        # The task, given back when Redis dropped, is delivered again once the worker is back: it finds the job
        # done and leaves it so. The worker then beats again.
        back = time.time()
        wait_for("worker back", lambda: _one(db, "SELECT count(*) FROM concord_workerbeat WHERE "
                                                 f"seen_at > datetime({back}, 'unixepoch')"), 90, worker)
        time.sleep(3)
        assert _one(db, "SELECT count(*) FROM ingest_ingestrun") == 1
        assert _one(db, "SELECT status FROM ingest_ingestrun") == "succeeded"
        assert _one(db, "SELECT created FROM ingest_ingestrun") == ISSUES
        assert _one(db, "SELECT count(*) FROM ingest_issue") == ISSUES
        assert _one(db, "SELECT finished_at FROM ingest_ingestrun") == finished
        assert worker.alive()
    finally:
        status = worker.ctrl_c() if worker.alive() else worker.process.returncode
        left = worker.left()
        worker.kill()
        redis.kill()
    assert not left, f"still running after Ctrl+C: {left}"
    assert status in {0, 2, 130, -2}, worker.output()[-3000:]  # make ends by the SIGINT it was sent
