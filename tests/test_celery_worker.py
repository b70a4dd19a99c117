"""A real Celery worker on real Redis, reading the same PostgreSQL test database (CI sets both URLs)."""
from __future__ import annotations

import contextlib
import os
import subprocess
import sys
import time
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import pytest
from django.conf import settings

from agreement.services import compute_agreement_task
from config.celery import app as celery_app
from tests.factories import label_with, make_issue, make_study

ROOT = Path(__file__).resolve().parent.parent


def _free_port() -> int:
    import socket

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


HELD_PORT = _free_port()

pytestmark = [
    pytest.mark.integration,
    pytest.mark.skipif(
        not (os.environ.get("REDIS_URL") and os.environ.get("DATABASE_URL", "").startswith("postgres")),
        reason="needs REDIS_URL and a PostgreSQL DATABASE_URL (as .ci/run sets them)",
    ),
]


@pytest.fixture(scope="session")
def celery_worker_process(django_db_setup, django_db_blocker):
    # The worker must read the test database pytest-django created, not the one DATABASE_URL names.
    url = urlsplit(os.environ["DATABASE_URL"])
    test_url = urlunsplit(url._replace(path="/" + settings.DATABASES["default"]["NAME"]))
    # An endpoint on a port of this session's, where a test serves the answers of a language model it holds back
    # when it wants the run caught in the middle (test_a_machine_run_whose_process_is_killed_runs_again_at_once).
    env = {**os.environ, "DATABASE_URL": test_url, "LLM_ENDPOINTS": f"held=http://127.0.0.1:{HELD_PORT}/v1",
           "LLM_ENDPOINT_HELD_API_KEY": "sk-test", "LLM_ALLOWED_NETWORKS": "127.0.0.1"}
    worker = subprocess.Popen(
        [sys.executable, "-m", "celery", "-A", "config", "worker", "--pool=solo", "--loglevel=warning",
         "--hostname", f"test-{os.getpid()}@%h", "--queues", settings.CELERY_QUEUES_ALL],
        cwd=ROOT, env=env,
    )
    try:
        deadline = time.monotonic() + 60
        while not celery_app.control.ping(timeout=1.0):
            if worker.poll() is not None or time.monotonic() > deadline:
                pytest.fail("the Celery worker did not start")
        yield worker
    finally:
        worker.terminate()
        worker.wait(timeout=30)


def _finished(model, pk, seconds: float = 120):
    """The job's row once its worker has finished it."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        row = model.objects.get(pk=pk)
        if row.status in {"succeeded", "failed"}:
            return row
        time.sleep(0.2)
    pytest.fail(f"{model.__name__} {pk} did not finish in {seconds} s")


@pytest.mark.django_db(transaction=True)
def test_agreement_task_runs_on_a_real_worker(celery_worker_process, lead, annotator_a, annotator_b):
    assert not celery_app.conf.task_always_eager
    issues = [make_issue(), make_issue()]
    study = make_study(lead, [annotator_a, annotator_b], issues=issues)
    for issue, (a, b) in zip(issues, [("C.1", "C.1"), ("B.1", "C.2")], strict=True):
        label_with(annotator_a, study, issue, a)
        label_with(annotator_b, study, issue, b)
    result = compute_agreement_task.apply_async(args=(study.rounds.get().pk,), ignore_result=False)
    figures = result.get(timeout=60)
    assert figures["type"]["reports"] == 2 and figures["type"]["raters"] == 2
    # P̄ = (1 + 0)/2; p = (B 1/4, C 3/4) → P̄e = 10/16; κ = (0.5 − 0.625)/0.375 = −1/3
    assert figures["type"]["kappa"] == pytest.approx(-1 / 3)


@pytest.mark.django_db(transaction=True)
def test_a_file_ingest_runs_on_a_real_worker_and_reports_progress(celery_worker_process, tmp_path):
    from ingest.models import IngestRun, Issue, Source
    from ingest.services import runs
    from ingest.services.work import ingest_task as run_ingest_task

    path = tmp_path / "issues.jsonl"
    path.write_text("\n".join(f'{{"number": {n}, "title": "Issue {n}"}}' for n in range(1, 2501)))
    source = Source.objects.create(full_name="o/r")
    run = runs.create_run(source, IngestRun.Kind.FILE, file_path=str(path))
    run_ingest_task.delay(run.pk)  # no result stored: the run's row is the result
    run = _finished(IngestRun, run.pk)
    assert (run.status, run.fetched, run.created, run.total) == ("succeeded", 2500, 2500, 2500)
    assert Issue.objects.filter(source=source).count() == 2500


@pytest.mark.django_db(transaction=True)
def test_a_summary_batch_runs_on_a_real_worker(celery_worker_process):
    from ingest.models import Source, Summary, SummaryBatch
    from ingest.services.summaries import summarise_task as summarise_source_task

    source = Source.objects.create(full_name="o/r")
    for n in range(3):
        make_issue(source, title=f"Crash {n}", body="Loading the model fails with an out of memory error.")
    batch = SummaryBatch.objects.create(source=source, backend="extractive", prompt_version="extractive-1")
    summarise_source_task.delay(batch.pk)
    batch = _finished(SummaryBatch, batch.pk)
    assert batch.status == "succeeded" and (batch.made, batch.cached, batch.failed) == (3, 0, 0)
    assert Summary.objects.filter(status="ok").count() == 3


@pytest.mark.django_db(transaction=True)
def test_a_machine_rater_runs_on_a_real_worker(celery_worker_process, lead, annotator_a, annotator_b):
    from django.db import transaction

    from machines.models import MachineLabel, MachineRun
    from machines.services.raters import add_rater
    from machines.services.runs import start_run

    issues = [make_issue(title=f"Crash {n} out of memory") for n in range(6)]
    study = make_study(lead, [annotator_a, annotator_b], issues=issues)
    for n, issue in enumerate(issues):
        for person in (annotator_a, annotator_b):
            label_with(person, study, issue, "C.1" if n % 2 else "B.1")
    rater = add_rater(study, name="tfidf", kind="builtin", raw_settings={"folds": 2})
    with transaction.atomic():
        run = start_run(rater, by=lead, expected_latest=0)  # queued when the transaction commits
    run = _finished(MachineRun, run.pk)
    assert run.status == "succeeded", run.message
    assert run.done == 6 and MachineLabel.objects.filter(run=run).count() == 6
    assert run.heartbeat_at is not None and run.started_at is not None


def _process_of_connection_from(port: int) -> int | None:
    """The process holding the TCP socket whose local port is `port` (on this machine's loopback)."""
    inodes = set()
    for line in Path("/proc/net/tcp").read_text().splitlines()[1:]:
        fields = line.split()
        if int(fields[1].rsplit(":", 1)[1], 16) == port:
            inodes.add(f"socket:[{fields[9]}]")
    for process in Path("/proc").iterdir():
        if not process.name.isdigit():
            continue
        with contextlib.suppress(OSError):
            if any(os.readlink(fd) in inodes for fd in (process / "fd").iterdir()):
                return int(process.name)
    return None


def _ancestry(pid: int) -> list[str]:
    """The process and its parents, each as "pid command"."""
    chain = []
    while pid > 1:
        try:
            command = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()[:80]
            parent = int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[1])
        except OSError:  # ended meanwhile
            break
        chain.append(f"{pid} {command}")
        pid = parent
    return chain


class _HeldModel:
    """An OpenAI-compatible server on HELD_PORT whose first answer waits until `release` is set: until then the
    run is known to be in the middle, its process waiting on the answer."""

    def __init__(self):
        import json
        import threading
        from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

        self.asked, self.release, self.requests, self.asker_port = threading.Event(), threading.Event(), 0, 0
        good = json.loads((ROOT / "tests" / "machines" / "data" / "llm-answers.json").read_text())["good"]
        held = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                held.requests += 1
                if held.requests == 1:
                    held.asker_port = self.client_address[1]
                    held.asked.set()
                    held.release.wait(60)
                content = json.dumps({"type": "C", "theme": "C.1"})
                reply = json.dumps({**good, "model": body["model"], "choices": [
                    {**good["choices"][0], "message": {"role": "assistant", "content": content}}]}).encode()
                try:
                    self.send_response(200)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(reply)))
                    self.end_headers()
                    self.wfile.write(reply)
                except OSError:
                    pass  # the process that asked is gone

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", HELD_PORT), Handler)
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def close(self):
        self.release.set()
        self.server.shutdown()
        self.server.server_close()


@pytest.mark.django_db(transaction=True)
def test_a_machine_run_whose_process_is_killed_runs_again_at_once(celery_worker_process, lead, annotator_a,
                                                                   annotator_b, settings):
    """The run's child process is killed while it waits on the model's first answer (as the kernel's
    out-of-memory killer would kill it): the worker lives, so the run is marked interrupted and taken again at
    once, and finishes, rather than waiting as "running" for its heartbeat to go stale (five minutes)."""
    import signal

    from django.db import transaction

    from machines.models import MachineLabel, MachineRun
    from machines.services.raters import add_rater
    from machines.services.runs import start_run

    settings.LLM_ENDPOINTS = {"held": {"base_url": f"http://127.0.0.1:{HELD_PORT}/v1", "api_key": "sk-test"}}
    settings.LLM_ALLOWED_NETWORKS = "127.0.0.1"
    issues = [make_issue(title=f"Crash {n} out of memory") for n in range(4)]
    study = make_study(lead, [annotator_a, annotator_b], issues=issues)
    rater = add_rater(study, name="held-model", kind="llm", raw_settings={"endpoint": "held", "model": "m",
                                                                          "runs": "1"})
    model = _HeldModel()
    try:
        with transaction.atomic():
            run = start_run(rater, by=lead, expected_latest=0)
        assert model.asked.wait(60), "the run never asked the model"
        assert MachineRun.objects.get(pk=run.pk).status == "running"
        # The process that asked, found by its connection: the run's child of this test's worker, nothing else.
        asker = _process_of_connection_from(model.asker_port)
        assert asker is not None, "no process holds the connection that asked the model"
        ancestry = _ancestry(asker)
        assert len(ancestry) > 1 and ancestry[1].startswith(f"{celery_worker_process.pid} "), \
            f"the model was asked by another process than a child of this test's worker: {ancestry}"
        os.kill(asker, signal.SIGKILL)
        deadline = time.monotonic() + 30
        while not MachineRun.objects.get(pk=run.pk).message.startswith("Interrupted") and \
                MachineRun.objects.get(pk=run.pk).status == "running" and time.monotonic() < deadline:
            time.sleep(0.05)
        model.release.set()
        deadline = time.monotonic() + 90  # far less than the five minutes a stale heartbeat takes
        while time.monotonic() < deadline:
            run = MachineRun.objects.get(pk=run.pk)
            if run.status == "succeeded" or (run.status == "failed" and not run.message.startswith("Interrupted")):
                break
            time.sleep(0.2)
    finally:
        model.close()
    assert run.status == "succeeded", run.message
    assert MachineLabel.objects.filter(run=run).count() == 4
    assert model.requests == 5  # the first answer went to the killed process and was asked again


@pytest.mark.django_db(transaction=True)
def test_the_planner_simulates_on_a_real_worker(celery_worker_process, lead, annotator_a, annotator_b):
    from agreement.models import Plan
    from agreement.services import compute_plan_task

    issues = [make_issue() for _ in range(4)]
    study = make_study(lead, [annotator_a, annotator_b], issues=issues)
    for issue, (a, b) in zip(issues, [("C.1", "C.1"), ("B.1", "C.2"), ("A.1", "A.1"), ("C.2", "C.2")], strict=True):
        label_with(annotator_a, study, issue, a)
        label_with(annotator_b, study, issue, b)
    round = study.rounds.get()
    compute_plan_task.apply_async(args=(round.pk, "theme"), ignore_result=False).get(timeout=120)
    kept = Plan.objects.get(round=round)
    assert kept.labels == 8 and [name for name, _ in kept.plans][0].startswith("Type")
