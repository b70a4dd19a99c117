"""A Celery worker killed (SIGKILL) in the middle of a 30,000-issue file import.

Real processes: the worker is started by the test and killed with its whole process group; PostgreSQL and
Redis as CI runs them. The run must not stay "running": its heartbeat stops and it is marked interrupted,
claiming no issue written (none is: the file is imported in one transaction); and the task comes back
(acks_late, reject_on_worker_lost): the next worker imports the file, once. Bounded: about a minute, at
most five on a loaded machine (the re-import of 30,000 issues then takes most of it).
"""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import pytest
from django.conf import settings

from ingest.models import IngestRun, Issue, Source
from ingest.services import runs
from ingest.services.work import ingest_task as run_ingest_task
from tests.concurrency import wait_for

ROOT = Path(__file__).resolve().parent.parent
N = 30_000
# A queue of its own: no other worker of the test session may take the task.
QUEUE = "killed-worker-test"

pytestmark = [
    pytest.mark.integration,
    pytest.mark.skipif(
        not (os.environ.get("REDIS_URL") and os.environ.get("DATABASE_URL", "").startswith("postgres")),
        reason="needs REDIS_URL and a PostgreSQL DATABASE_URL (as .ci/run sets them)",
    ),
]


def _start_worker(name: str) -> subprocess.Popen:
    url = urlsplit(os.environ["DATABASE_URL"])
    env = {**os.environ, "DATABASE_URL": urlunsplit(url._replace(path="/" + settings.DATABASES["default"]["NAME"])),
           # A task taken by a worker that vanished whole comes back after this many seconds (2 hours deployed).
           "CELERY_VISIBILITY_TIMEOUT": "5", "INGEST_PROCESSES": "1"}
    return subprocess.Popen(
        [sys.executable, "-m", "celery", "-A", "config", "worker", "--pool=solo", "--loglevel=warning",
         "--hostname", f"{name}-{os.getpid()}@%h", "--queues", QUEUE],
        cwd=ROOT, env=env, start_new_session=True,  # its own process group, to kill it whole
    )


@pytest.mark.django_db(transaction=True)
def test_a_killed_import_is_marked_interrupted_and_imported_once_by_the_next_worker(tmp_path):
    path = tmp_path / "issues.jsonl"
    body = "A long report body that makes the import take a while. " * 40
    path.write_text("\n".join(json.dumps({"number": n, "title": f"Issue {n}", "body": body})
                              for n in range(1, N + 1)))
    source = Source.objects.create(full_name="o/killed")
    run = runs.create_run(source, IngestRun.Kind.FILE, file_path=str(path), file_format="jsonl")

    first = _start_worker("doomed")
    try:
        run_ingest_task.apply_async(args=[run.pk], queue=QUEUE)
        # Kill it once it has read part of the file (its heartbeat says so), mid-transaction.
        wait_for(lambda: IngestRun.objects.filter(pk=run.pk, fetched__gte=2000).exists(), 60, "progress")
    finally:
        os.killpg(first.pid, signal.SIGKILL)
        first.wait(timeout=30)
    killed = IngestRun.objects.get(pk=run.pk)
    assert killed.status == IngestRun.Status.RUNNING and 0 < killed.fetched < N
    assert (killed.created, Issue.objects.filter(source=source).count()) == (0, 0)  # counts are what was committed

    time.sleep(1.5)
    assert runs.interrupt_stale(stale_after=1) == 1
    interrupted = IngestRun.objects.get(pk=run.pk)
    assert interrupted.status == IngestRun.Status.FAILED and "Interrupted: no heartbeat since" in interrupted.message
    assert "none was kept" in interrupted.message and interrupted.created == 0

    # The task was never acknowledged: the next worker takes it again and imports the file, once.
    second = _start_worker("heir")
    try:
        done = wait_for(lambda: IngestRun.objects.filter(pk=run.pk, status=IngestRun.Status.SUCCEEDED).first(),
                        240, "the redelivered import")
    finally:
        second.terminate()
        second.wait(timeout=30)
    assert (done.fetched, done.created) == (N, N)
    assert Issue.objects.filter(source=source).count() == N
