"""Redis stopped under a running Concord: a real redis-server that the test starts and stops.

Sessions live in the cached-database backend (Redis in front, the database behind), so logged-in annotators
keep labeling and people can still log in while Redis is away; a page that starts long work says the queue is
unavailable instead of failing.
"""
from __future__ import annotations

import base64
import json
import shutil
import socket
import subprocess
import time

import pytest
import redis
from django.test import Client
from django.urls import reverse

from agreement.models import AgreementSnapshot
from agreement.services import compute_agreement_task
from annotation.models import Label
from config.celery import app as celery_app
from ingest.models import Source, SummaryBatch
from tests.factories import label_with

pytestmark = [
    # Transactions commit as in production, so that work is sent to the queue while the page is being made.
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(shutil.which("redis-server") is None, reason="needs redis-server (CI has it)"),
]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture
def own_redis():
    port = _free_port()
    server = subprocess.Popen(["redis-server", "--port", str(port), "--bind", "127.0.0.1", "--save", "",
                               "--appendonly", "no"], stdout=subprocess.DEVNULL)
    deadline = time.monotonic() + 20
    while True:
        try:
            redis.Redis(port=port, socket_timeout=1).ping()
            break
        except redis.ConnectionError:
            if time.monotonic() > deadline:
                server.kill()
                pytest.fail("redis-server did not start")
            time.sleep(0.1)
    yield port, server
    server.kill()
    server.wait(timeout=10)


def _forget_backend() -> None:
    celery_app._backend_cache = None
    celery_app._local.__dict__.pop("backend", None)


@pytest.fixture
def redis_in_front(own_redis, settings):
    port, server = own_redis
    url = f"redis://127.0.0.1:{port}/0"
    settings.CACHES = {"default": {
        "BACKEND": "django_redis.cache.RedisCache", "LOCATION": url, "KEY_PREFIX": "concord-test",
        "OPTIONS": {"IGNORE_EXCEPTIONS": True, "SOCKET_CONNECT_TIMEOUT": 0.5, "SOCKET_TIMEOUT": 0.5},
    }}
    settings.SESSION_ENGINE = "django.contrib.sessions.backends.cached_db"
    # The queue on the same Redis, as deployed.
    saved = {k: celery_app.conf[k] for k in ("broker_url", "result_backend", "task_always_eager")}
    celery_app.conf.update(broker_url=url, result_backend=url, task_always_eager=False)
    _forget_backend()  # the result backend is made once, from the configuration
    celery_app._pool = None
    celery_app.amqp._producer_pool = None
    yield port, server
    celery_app.conf.update(**saved)
    _forget_backend()
    celery_app._pool = None
    celery_app.amqp._producer_pool = None


def _log_in(username: str) -> Client:
    client = Client()
    response = client.post(reverse("login"), {"username": username, "password": f"pw-{username}"})
    assert response.status_code == 302, response.content[:500]
    return client


def test_annotators_keep_labeling_and_logging_in_while_redis_is_away(redis_in_front, study, annotator_a,
                                                                       annotator_b, admin):
    port, server = redis_in_front
    alice = _log_in(annotator_a.username)
    assert redis.Redis(port=port).keys("*"), "the session should be cached in Redis"
    first, second = study.issues.order_by("pk")[:2]

    server.kill()
    server.wait(timeout=10)

    # Alice's session is read from the database behind the cache: she stays logged in and labels.
    assert alice.get(reverse("annotation:queue", args=[study.pk])).status_code == 200
    response = alice.post(reverse("api:label_list", args=[study.pk]), {"issue": first.pk, "is_relevant": False},
                          content_type="application/json")
    assert response.status_code == 201, response.content[:500]
    # Logging in needs no cache either.
    bob = _log_in(annotator_b.username)
    response = bob.post(reverse("api:label_list", args=[study.pk]), {"issue": second.pk, "is_relevant": False},
                        content_type="application/json")
    assert response.status_code == 201
    assert Label.objects.filter(study=study).count() == 2

    # Long work needs the queue: the page says it is unavailable, and the job's row keeps why.
    admin_client = _log_in(admin.username)
    source = Source.objects.create(full_name="o/r")
    response = admin_client.post(reverse("ingest:source_ingest", args=[source.pk]), {"summarise": "1"}, follow=True)
    assert response.status_code == 200 and "The task queue is unavailable" in response.content.decode()
    batch = SummaryBatch.objects.get(source=source)
    assert batch.status == SummaryBatch.Status.FAILED and "Redis does not answer" in batch.message


def test_the_dashboard_hands_its_figures_to_a_worker_once_and_computes_them_itself_when_redis_is_away(
        redis_in_front, study, lead, annotator_a, annotator_b):
    port, server = redis_in_front
    for issue in study.issues.all():
        for person, code in ((annotator_a, "C.1"), (annotator_b, "C.1"), (lead, "B.1")):
            label_with(person, study, issue, code)
    lead_client = _log_in(lead.username)
    url = reverse("agreement:study_agreement", args=[study.pk])
    broker = redis.Redis(port=port)

    # No worker here: the page says the figures are being computed, and asking again sends nothing more.
    for _ in range(2):
        page = lead_client.get(url).content.decode()
        assert 'data-testid="computing"' in page and 'hx-trigger="every 2s"' in page
    assert broker.llen("statistics") == 1
    assert not AgreementSnapshot.objects.exists()

    # What the worker does with the message: the snapshot, and the page shows it.
    message = json.loads(broker.lpop("statistics"))
    round_id, level, by_id = json.loads(base64.b64decode(message["body"]))[0]
    assert (level, by_id) == ("theme", lead.pk)
    compute_agreement_task(round_id, level, by_id)
    page = lead_client.get(url).content.decode()
    assert 'data-testid="provenance"' in page and 'data-testid="computing"' not in page
    assert AgreementSnapshot.objects.get().computed_by == lead

    # A recompute goes to the worker too: the page keeps the figures it has and says new ones are coming.
    lead_client.post(reverse("agreement:recompute", args=[study.pk]),
                     {"level": "theme", "expected": AgreementSnapshot.objects.get().pk})
    page = lead_client.get(url).content.decode()
    assert 'data-testid="recomputing"' in page and 'data-testid="provenance"' in page
    message = json.loads(broker.lpop("statistics"))
    compute_agreement_task(*json.loads(base64.b64decode(message["body"]))[0])
    page = lead_client.get(url).content.decode()
    assert 'data-testid="recomputing"' not in page and AgreementSnapshot.objects.count() == 2

    # With Redis away, recomputing happens in the request instead of failing or waiting forever.
    server.kill()
    server.wait(timeout=10)
    response = lead_client.post(reverse("agreement:recompute", args=[study.pk]), {"level": "sub_theme", "expected": 0},
                                follow=True)
    assert response.status_code == 200 and "Recomputed on" in response.content.decode()
    assert AgreementSnapshot.objects.filter(level="sub_theme").count() == 1
    page = lead_client.get(url).content.decode()  # the cache away reads as "nothing under way"
    assert 'data-testid="provenance"' in page and 'data-testid="recomputing"' not in page


def test_a_machine_raters_figures_are_measured_by_a_worker_and_a_decision_waits_for_them(
        redis_in_front, study, lead, annotator_a, annotator_b):
    from machines.models import MachineLabel, MachineRater, MachineRun, Measurement
    from machines.services.measurements import measure_task

    port, _ = redis_in_front
    for issue in study.issues.all():
        for person in (annotator_a, annotator_b, lead):
            label_with(person, study, issue, "C.1")
    rater = MachineRater.objects.create(study=study, name="oracle", kind="builtin")
    run = MachineRun.objects.create(rater=rater, status="succeeded")
    MachineLabel.objects.bulk_create(MachineLabel(run=run, issue=issue, type_code="C", theme_code="C.1")
                                     for issue in study.issues.all())
    lead_client = _log_in(lead.username)
    url = reverse("machines:rater", args=[study.pk, rater.pk])
    broker = redis.Redis(port=port)

    for _ in range(2):
        page = lead_client.get(url).content.decode()
        assert 'data-testid="computing"' in page and 'data-testid="measurement"' not in page
    assert broker.llen("statistics") == 1 and not Measurement.objects.exists()
    form = {"level": "type", "type_code": "", "epsilon": "0.15", "sentinel_share": "1", "reason": "Good",
            "expected_run": run.pk}
    response = lead_client.post(reverse("machines:decide", args=[study.pk, rater.pk]), form, follow=True)
    assert "still being measured" in response.content.decode()

    message = json.loads(broker.lpop("statistics"))
    assert json.loads(base64.b64decode(message["body"]))[0] == [run.pk, "type", "", 0.15, None]
    measure_task(run.pk, "type", "", 0.15, None)
    page = lead_client.get(url).content.decode()
    assert 'data-testid="measurement"' in page and 'data-testid="computing"' not in page
    assert Measurement.objects.get().figures["run"] == run.pk


def test_with_redis_away_from_the_start_the_figures_are_computed_in_the_request(
        redis_in_front, study, lead, annotator_a, annotator_b):
    """Redis away before any figure was ever computed: the page, the API and a recompute compute in the request
    (or say the queue is away), promptly, never a server error."""
    _, server = redis_in_front
    for issue in study.issues.all():
        for person, code in ((annotator_a, "C.1"), (annotator_b, "C.1"), (lead, "B.1")):
            label_with(person, study, issue, code)
    lead_client = _log_in(lead.username)
    server.kill()
    server.wait(timeout=10)
    started = time.monotonic()
    page = lead_client.get(reverse("agreement:study_agreement", args=[study.pk]))
    assert page.status_code == 200 and 'data-testid="provenance"' in page.content.decode()
    api = lead_client.get(f"/api/studies/{study.pk}/agreement/")
    assert api.status_code == 200, api.content[:300]
    again = lead_client.post(reverse("agreement:recompute", args=[study.pk]),
                             {"level": "theme", "expected": AgreementSnapshot.objects.latest("pk").pk}, follow=True)
    assert again.status_code == 200 and "Recomputed on" in again.content.decode()
    assert time.monotonic() - started < 15  # not the result backend's twenty retries per request
