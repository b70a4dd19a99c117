"""A job's task delivered twice runs once: the delivery that claims the job's row runs it; another one while it
runs (Redis hands an unacknowledged task out again after its visibility timeout, whether its worker lives or not)
leaves it and looks again later; once the heartbeat has stopped, the next look takes it over."""
from __future__ import annotations

import time
from datetime import timedelta

import pytest
from django.db import connection
from django.utils import timezone

from concord import jobs
from ingest.models import IngestRun, Source
from ingest.services import runs
from ingest.services.work import ingest_task
from tests.concurrency import at_once, wait_for

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def run(tmp_path):
    path = tmp_path / "issues.jsonl"
    path.write_text('{"number": 1, "title": "One", "body": "b"}\n')
    return runs.create_run(Source.objects.create(full_name="o/claimed"), IngestRun.Kind.FILE, file_path=str(path),
                           file_format="jsonl")


def _age(run: IngestRun, seconds: float) -> None:
    IngestRun.objects.filter(pk=run.pk).update(heartbeat_at=timezone.now() - timedelta(seconds=seconds))


def test_a_queued_job_is_taken_once_and_then_held_while_it_beats(run, settings):
    settings.JOB_HEARTBEAT_STALE_SECONDS = 60
    assert jobs.claim(IngestRun, run.pk, worker="ingest@host1") is True
    assert IngestRun.objects.values_list("status", "worker").get(pk=run.pk) == ("running", "ingest@host1")
    assert jobs.claim(IngestRun, run.pk, worker="ingest@host2") is False
    _age(run, 59)
    assert jobs.claim(IngestRun, run.pk, worker="ingest@host2") is False
    _age(run, 61)  # its worker died: the next delivery takes it over
    assert jobs.claim(IngestRun, run.pk, worker="ingest@host2") is True
    assert IngestRun.objects.get(pk=run.pk).worker == "ingest@host2"
    assert jobs.claim(IngestRun, run.pk) is False


def test_an_ended_job_is_not_run_again_but_an_interrupted_one_is(run, settings):
    IngestRun.objects.filter(pk=run.pk).update(status=IngestRun.Status.SUCCEEDED)
    assert jobs.claim(IngestRun, run.pk) is None
    IngestRun.objects.filter(pk=run.pk).update(status=IngestRun.Status.FAILED, message="line 3: body: too long")
    assert jobs.claim(IngestRun, run.pk) is None
    assert jobs.claim(IngestRun, 10**9) is None  # deleted meanwhile

    IngestRun.objects.filter(pk=run.pk).update(status=IngestRun.Status.RUNNING, started_at=timezone.now())
    _age(run, settings.JOB_HEARTBEAT_STALE_SECONDS + 1)
    assert runs.interrupt_stale() == 1
    assert jobs.claim(IngestRun, run.pk) is True


def test_a_delivery_of_a_job_another_worker_runs_does_not_run_it(run, monkeypatch):
    ran = []
    monkeypatch.setattr("ingest.services.work.run_file_import", lambda r: ran.append(r.pk))
    assert jobs.claim(IngestRun, run.pk) is True  # a worker took it and beats
    ingest_task.delay(run.pk)
    assert ran == []
    _age(run, 10 * 60)
    ingest_task.delay(run.pk)
    assert ran == [run.pk]


def test_a_held_job_is_looked_at_again_within_the_visibility_timeout(settings):
    settings.JOB_HEARTBEAT_STALE_SECONDS = 300
    settings.CELERY_BROKER_TRANSPORT_OPTIONS = {"visibility_timeout": 7200}
    assert jobs.recheck_seconds() == 150
    settings.CELERY_BROKER_TRANSPORT_OPTIONS = {"visibility_timeout": 4}
    assert jobs.recheck_seconds() == 2
    settings.JOB_HEARTBEAT_STALE_SECONDS = 1
    settings.CELERY_BROKER_TRANSPORT_OPTIONS = {}
    assert jobs.recheck_seconds() == 1


@pytest.mark.skipif(connection.vendor != "postgresql", reason="row locks need PostgreSQL (SQLite locks the file)")
def test_of_deliveries_at_once_one_takes_the_job(run):
    taken: list[bool | None] = []
    assert at_once(*[lambda: taken.append(jobs.claim(IngestRun, run.pk))] * 6) == [None] * 6
    assert sorted(taken) == [False] * 5 + [True]


def test_a_running_job_beats_while_its_work_runs_and_only_while_it_is_its_workers(run, settings):
    # Work that never beats itself (a long step) is not taken for dead while its worker lives.
    settings.JOB_HEARTBEAT_STALE_SECONDS = 1.5
    assert jobs.claim(IngestRun, run.pk, worker="ingest@host1") is True
    _age(run, 60)
    with jobs.Heartbeat(IngestRun, run.pk, worker="ingest@host1"):
        wait_for(lambda: IngestRun.objects.get(pk=run.pk).heartbeat_at > timezone.now() - timedelta(seconds=1), 10,
                 "the heartbeat")
        time.sleep(2)  # longer than the staleness: still held
        assert jobs.claim(IngestRun, run.pk, worker="ingest@host2") is False
    # Taken over (its heartbeat had stopped) or ended: a beat of the first worker no longer touches it.
    _age(run, 60)
    assert jobs.claim(IngestRun, run.pk, worker="ingest@host2") is True
    _age(run, 60)
    with jobs.Heartbeat(IngestRun, run.pk, worker="ingest@host1"):
        time.sleep(1.5)
    assert IngestRun.objects.get(pk=run.pk).heartbeat_at < timezone.now() - timedelta(seconds=30)
