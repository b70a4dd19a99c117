"""Background work seen from every process of a set-up: what the worker marks done, the server sees done; figures
follow the labels; a page that waits on a worker says when none is up; `/healthz` and `/readyz`."""
from __future__ import annotations

import os
import subprocess
import sys
from datetime import timedelta
from pathlib import Path

import pytest
from django.urls import reverse
from django.utils import timezone

from agreement.models import AgreementSnapshot
from annotation.models import Study
from annotation.services.phases import advance
from concord import workers
from concord.models import WorkerBeat
from config.celery import app as celery_app
from tests.factories import label_with, make_issue, make_study

ROOT = Path(__file__).resolve().parent.parent


def _shell(env, code: str) -> str:
    done = subprocess.run([sys.executable, "manage.py", "shell", "-c", code], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return done.stdout.strip().splitlines()[-1] if done.stdout.strip() else ""


def test_what_one_process_marks_under_way_another_sees_and_clears(tmp_path):
    # As `make run` starts them: a server and a worker, each its own process, on the default set-up (no Redis).
    env = {k: v for k, v in os.environ.items() if k not in {"REDIS_URL", "CELERY_EAGER"}}
    env |= {"DATABASE_URL": f"sqlite:///{tmp_path / 'db.sqlite3'}", "CACHE_DIR": str(tmp_path / "cache")}
    key = "agreement:computing:1:theme"
    _shell(env, f"from django.core.cache import cache; cache.add({key!r}, True, 900)")  # the server sends
    assert _shell(env, f"from concord import jobs; print(jobs.under_way({key!r})); jobs.done({key!r})") == "True"
    assert _shell(env, f"from concord import jobs; print(jobs.under_way({key!r}))") == "False"  # the server sees


@pytest.mark.django_db
def test_the_dashboard_follows_new_labels_and_the_close(client_as, lead, annotator_a, annotator_b):
    issues = [make_issue() for _ in range(3)]
    study = make_study(lead, [annotator_a, annotator_b], issues=issues)
    for person in (lead, annotator_a):
        for issue in issues:
            label_with(person, study, issue, "C.1")
    url = reverse("agreement:study_agreement", args=[study.pk])
    client = client_as(lead)
    client.get(url)
    assert AgreementSnapshot.objects.get().labels == 6
    client.get(url)
    assert AgreementSnapshot.objects.count() == 1  # nothing changed: a visit recomputes nothing
    label_with(annotator_b, study, issues[0], "C.1")
    page = client.get(url).content.decode()
    assert AgreementSnapshot.objects.latest("pk").labels == 7 and "on 7 labels" in page
    assert AgreementSnapshot.objects.latest("pk").figures["basis"] != "final labels"
    for _ in range(3):  # review, adjudication, closed: every report agrees, so nothing waits on a decision
        advance(Study.objects.get(pk=study.pk), lead, confirm_missing=True)
    assert Study.objects.get(pk=study.pk).phase == "closed"
    page = client.get(url).content.decode()
    assert AgreementSnapshot.objects.latest("pk").figures["basis"] == "final labels"
    assert "Reports are grouped by type using the final labels." in page


@pytest.fixture
def tasks_to_a_worker(db):
    # As a real set-up: tasks go to a worker (the tests otherwise run them in the request).
    celery_app.conf.task_always_eager = False
    # And none is up: a worker an earlier test of this process started beats into this database too (the
    # session's, on a real Redis), and one a test killed leaves its row fresh for a minute. Deleted inside the
    # test's transaction, a row stays away until the test ends (a live worker's next beat waits on it).
    WorkerBeat.objects.all().delete()
    yield
    celery_app.conf.task_always_eager = True


@pytest.mark.django_db
def test_a_page_waiting_on_background_work_says_when_no_worker_is_up(client_as, study, lead, annotator_a,
                                                                      tasks_to_a_worker, monkeypatch):
    from agreement import views

    monkeypatch.setattr(views, "request_snapshot", lambda *args, **kwargs: None)  # sent; nobody takes it
    label_with(annotator_a, study, study.issues.first(), "C.1")
    url = reverse("agreement:study_agreement", args=[study.pk])
    page = client_as(lead).get(url).content.decode()
    assert 'data-testid="computing"' in page and 'data-testid="no-worker"' in page
    # The command that starts one where this set-up is: `make run` on the default, `make worker` beside Redis.
    assert "Background work is not running" in page and f"<code>{workers.start_command()}</code>" in page
    # A worker that beat a moment ago takes the statistics queue: the page waits, quietly.
    WorkerBeat.objects.create(name="celery@here", queues="celery,statistics", started_at=timezone.now(),
                              seen_at=timezone.now())
    page = client_as(lead).get(url).content.decode()
    assert 'data-testid="computing"' in page and 'data-testid="no-worker"' not in page
    # One whose last beat is two minutes old is not up; nor is one that takes other queues only.
    WorkerBeat.objects.update(seen_at=timezone.now() - timedelta(minutes=2))
    assert 'data-testid="no-worker"' in client_as(lead).get(url).content.decode()
    WorkerBeat.objects.update(seen_at=timezone.now(), queues="ingest")
    assert 'data-testid="no-worker"' in client_as(lead).get(url).content.decode()


@pytest.mark.django_db
def test_healthz_answers_and_readyz_names_what_is_missing(client, admin, tasks_to_a_worker):
    assert client.get("/healthz").json() == {"status": "ok"}
    # A stranger (a balancer) reads which check failed, not what it found.
    assert client.get("/readyz").json()["checks"]["worker"] == {"ok": False}
    client.force_login(admin)
    answer = client.get("/readyz")
    checks = answer.json()["checks"]
    assert answer.status_code == 503 and answer.json()["status"] == "not ready"
    assert checks["database"]["ok"] and checks["migrations"]["ok"] and checks["broker"]["ok"]
    assert not checks["worker"]["ok"] and "start one with" in checks["worker"]["detail"]
    # A web host is ready without the worker: a balancer must not take every web host out for want of one.
    assert client.get("/readyz", {"role": "web"}).status_code == 200
    WorkerBeat.objects.create(name="celery@here", queues="celery,ingest,statistics,summaries",
                              started_at=timezone.now(), seen_at=timezone.now())
    answer = client.get("/readyz")
    assert answer.status_code == 200 and answer.json()["checks"]["worker"]["detail"].startswith("celery@here")
    for hostile in ("", "WEB", "web\x00", "x" * 10_000, "全部"):
        answer = client.get("/readyz", {"role": hostile})
        assert answer.status_code == 400 and answer.json() == {"role": "one of all, web"}
    assert client.post("/readyz").status_code == 405 and client.post("/healthz").status_code == 405


def test_the_command_named_is_the_one_this_installation_has(settings):
    settings.REDIS_URL = ""
    assert workers.start_command() == "make run"
    settings.REDIS_URL = "redis://127.0.0.1:6379/0"
    assert workers.start_command() == "make worker"
    settings.DATA_DIR = settings.BASE_DIR / "elsewhere"  # CONCORD_HOME: an installed package
    assert workers.start_command() == "concord worker"
    settings.REDIS_URL = ""
    assert workers.start_command() == "concord run"
