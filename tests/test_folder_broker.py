"""The zero-set-up default (`make run`): SQLite and a worker on the folder broker, no Redis. A long job is sent
and the sender goes on at once; the worker runs it beside. Separate processes, as `make run`
starts them, on a database and a broker folder of their own."""
from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SEND = """
import time
from ingest.models import IngestRun, Source
from ingest.services import runs
from ingest.services.work import ingest_task as run_ingest_task
source = Source.objects.create(full_name="o/r")
run = runs.create_run(source, IngestRun.Kind.FILE, file_path={path!r})
started = time.monotonic()
run_ingest_task.delay(run.pk)
print("sent", run.pk, round(time.monotonic() - started, 3))
"""
STATUS = "from ingest.models import IngestRun; r = IngestRun.objects.get(); print(r.status, r.created)"


def _manage(env, *args) -> str:
    done = subprocess.run([sys.executable, "manage.py", *args], cwd=ROOT, env=env, capture_output=True, text=True,
                          timeout=180)
    assert done.returncode == 0, done.stderr
    return done.stdout.strip().splitlines()[-1] if done.stdout.strip() else ""


# 20 s, a worker process started and stopped: CI's, beside tests/test_front_door.py, which runs `make run`'s own.
@pytest.mark.slow
def test_a_job_runs_on_the_worker_beside_the_server_without_redis(tmp_path):
    env = {k: v for k, v in os.environ.items() if k not in {"REDIS_URL", "CELERY_EAGER"}}
    env |= {"DATABASE_URL": f"sqlite:///{tmp_path / 'db.sqlite3'}", "CELERY_BROKER_DIR": str(tmp_path / "broker")}
    _manage(env, "migrate", "-v0")
    path = tmp_path / "issues.jsonl"
    path.write_text("\n".join(f'{{"number": {n}, "title": "Issue {n}"}}' for n in range(1, 3001)))
    # Sent while no worker runs: it waits in the folder, and sending took no time.
    sent = _manage(env, "shell", "-c", SEND.format(path=str(path))).split()
    assert sent[0] == "sent" and float(sent[2]) < 5 and len(list((tmp_path / "broker" / "queue").iterdir())) == 1
    assert _manage(env, "shell", "-c", STATUS).split() == ["queued", "0"]
    worker = subprocess.Popen([sys.executable, "-m", "celery", "-A", "config", "worker", "--pool=threads",
                               "--concurrency=2", "--queues", "ingest,summaries,statistics,celery",
                               "--loglevel=warning"], cwd=ROOT, env=env, stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 120
        while (status := _manage(env, "shell", "-c", STATUS).split()) != ["succeeded", "3000"]:
            assert worker.poll() is None and time.monotonic() < deadline, status
            time.sleep(1)
    finally:
        worker.terminate()
        worker.wait(timeout=30)
    # kombu's exchange tables live in the broker's folder, not in a `control/` folder of the working tree.
    assert (tmp_path / "broker" / "control").is_dir()
