"""Reads that may be stale come from a streaming replica; nobody sees their own write missing, and nothing read
from it claims to be newer than it is.

A real replica (tests/hosts/replica.py) of the test's PostgreSQL and the app under gunicorn with
DATABASE_REPLICA_URL. The replica's replay is paused (lag, for as long as the test wants) while an annotator and
the lead label: the lead's export right after their own label comes from the primary and holds it (also in a
second browser without the first one's cookie); an admin who wrote nothing gets the replica's older state, and
its stated moment (the export's Concord-Data-As-Of, the dashboard's "as they were at") is never later than what
it holds. Resumed, the replica serves everything. Bounded: under a minute.
"""
from __future__ import annotations

import http.client
import json
import os
import re
import secrets
import socket
import subprocess
import sys
import time
from contextlib import contextmanager, suppress
from datetime import datetime
from pathlib import Path

import pytest
from django.conf import settings
from django.contrib.sessions.backends.cached_db import SessionStore
from django.db import connection

from agreement.models import AgreementSnapshot
from annotation.models import Label
from annotation.services.queues import fill_queues
from taxonomy.models import Category
from tests import factories
from tests.hosts import replica as replicas

ROOT = Path(__file__).resolve().parents[2]

pytestmark = [
    pytest.mark.integration,
    pytest.mark.alone,
    pytest.mark.skipif(
        not (os.environ.get("REDIS_URL") and os.environ.get("DATABASE_URL", "").startswith("postgres")),
        reason="needs REDIS_URL and a PostgreSQL DATABASE_URL (as .ci/run sets them)",
    ),
]


class Browser:
    """One person's browser: their session, the cookies the server sets, JSON and downloads."""

    def __init__(self, port: int, user):
        store = SessionStore()
        store.update({"_auth_user_id": str(user.pk), "_auth_user_backend": "concord.auth.UserRowBackend",
                      "_auth_user_hash": user.get_session_auth_hash()})
        store.create()
        csrf = secrets.token_hex(16)
        self.port, self.cookies = port, {"sessionid": store.session_key, "csrftoken": csrf}
        self.csrf = csrf

    def call(self, method: str, path: str, body: dict | None = None):
        connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=60)
        headers = {"Cookie": "; ".join(f"{k}={v}" for k, v in self.cookies.items()), "X-CSRFToken": self.csrf,
                   "Referer": "http://127.0.0.1/"}
        payload = None
        if body is not None:
            payload, headers["Content-Type"] = json.dumps(body).encode(), "application/json"
        connection.request(method, path, body=payload, headers=headers)
        response = connection.getresponse()
        data = response.read()
        for name, value in response.getheaders():
            if name.lower() == "set-cookie":
                key, _, rest = value.partition("=")
                self.cookies[key] = rest.split(";", 1)[0]
        connection.close()
        return response, data


@contextmanager
def _server(env: dict[str, str]):
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    process = subprocess.Popen(
        [sys.executable, "-m", "gunicorn", "config.wsgi", "--config", "gunicorn.conf.py", "--bind",
         f"127.0.0.1:{port}", "--workers", "1", "--threads", "4", "--log-level", "warning"],
        cwd=ROOT, env={**os.environ, **env})
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            with suppress(OSError), socket.create_connection(("127.0.0.1", port), timeout=0.5):
                break
            time.sleep(0.1)
        yield port
    finally:
        process.terminate()
        process.wait(timeout=30)


def _export(browser: Browser, study) -> tuple[datetime, set[tuple[str, str, str]]]:
    """The JSON Lines export's stated moment and the labels it holds: (annotator, report, time saved)."""
    response, data = browser.call("GET", f"/studies/{study.pk}/corpus.jsonl")
    assert response.status == 200, (response.status, response.getheader("Location"), data[:300])
    held = set()
    for line in data.decode().splitlines():
        record = json.loads(line)
        held |= {(label["annotator"], record["number"], label["time"]) for label in record["labels"]}
    return datetime.fromisoformat(response.getheader("Concord-Data-As-Of")), held


def _labels(study, until: datetime | None = None) -> set[tuple[str, str, str]]:
    rows = Label.objects.filter(study=study)
    if until is not None:
        rows = rows.filter(updated_at__lte=until)
    return {(who, number, when.isoformat()) for who, number, when in rows.values_list("annotator__username",
                                                                                        "issue__number",
                                                                                        "updated_at")}


@pytest.mark.django_db(transaction=True)
def test_stale_reads_come_from_the_replica_and_never_hide_ones_own_write():
    why = replicas.available()
    if why and os.environ.get("CONCORD_REQUIRE_HOSTS"):
        pytest.fail(f"the replica test cannot run: {why}")
    if why:
        pytest.skip(why)
    assert connection.vendor == "postgresql"
    lead, annotator = factories.make_user("replica-lead"), factories.make_user("replica-annotator")
    admin = factories.make_user("replica-admin", is_staff=True)
    study = factories.make_study(lead, annotators=[annotator], n_issues=4, lead_labels_blind=False)
    reports = list(study.issues.order_by("pk").values_list("pk", flat=True))
    fill_queues(study.rounds.get(), {lead.pk: reports, annotator.pk: reports})
    theme = Category.objects.filter(codebook=study.codebook, level=Category.Level.THEME).first()
    database = settings.DATABASES["default"]["NAME"]

    with replicas.Replica() as replica:
        primary = settings.DATABASES["default"]
        env = {"DATABASE_URL": f"postgres://{primary['USER'] or 'postgres'}@{primary['HOST'] or '127.0.0.1'}:"
                               f"{primary['PORT'] or 5432}/{database}",
               "DATABASE_REPLICA_URL": replica.url(database), "DEBUG": "0", "SECRET_KEY": settings.SECRET_KEY,
               "ALLOWED_HOSTS": "127.0.0.1", "SECURE_SSL_REDIRECT": "0", "SECURE_COOKIES": "0",
               # The figures are computed in the page's own process here (a worker does the same).
               "CELERY_EAGER": "1", "REPLICA_WAIT_SECONDS": "1"}
        subprocess.run([sys.executable, "manage.py", "collectstatic", "--noinput", "-v", "0"], cwd=ROOT,
                       env={**os.environ, **env}, check=True)
        with _server(env) as port:
            as_lead, as_annotator, as_admin = Browser(port, lead), Browser(port, annotator), Browser(port, admin)
            before, held = _export(as_admin, study)
            assert held == set()

            replica.pause()
            paused_at = datetime.now(before.tzinfo)
            for who, report in ((as_annotator, reports[0]), (as_lead, reports[1])):
                response, data = who.call("POST", f"/api/studies/{study.pk}/labels/",
                                          {"issue": report, "type": theme.parent_id, "theme": theme.pk})
                assert response.status == 201, data
            assert "concord_wrote" in as_lead.cookies
            everything = _labels(study)
            assert len(everything) == 2

            # The lead's export right after their own label holds it, and everything before it.
            as_of, held = _export(as_lead, study)
            assert held == everything and as_of >= max(datetime.fromisoformat(t) for _, _, t in everything)
            # So does the lead's second browser, which has no cookie of the first: the shared cache knows.
            as_of, held = _export(Browser(port, lead), study)
            assert held == everything

            # The admin wrote nothing: the replica's state, stated no later than what it holds.
            as_of, held = _export(as_admin, study)
            assert as_of < paused_at and held == _labels(study, until=as_of) == set()

            # The dashboard's figures, read from the lagging replica, say so.
            response, page = as_admin.call("GET", f"/studies/{study.pk}/agreement/")
            assert response.status == 200
            shown = re.search(rb'data-testid="as-of" datetime="([^"]+)"', page)
            snapshot = AgreementSnapshot.objects.filter(study=study).latest("computed_at")
            assert shown and datetime.fromisoformat(shown.group(1).decode()) == snapshot.as_of
            assert snapshot.as_of < paused_at and snapshot.labels == len(_labels(study, until=snapshot.as_of))

            # The statistics page says as of when: the replica's moment for the admin, now for the lead.
            last_saved = max(datetime.fromisoformat(t) for _, _, t in everything)
            for who, stale in ((as_admin, True), (as_lead, False)):
                response, page = who.call("GET", f"/studies/{study.pk}/statistics/")
                assert response.status == 200
                shown = datetime.fromisoformat(re.search(rb'data-testid="as-of" datetime="([^"]+)"', page)
                                               .group(1).decode())
                assert (shown < paused_at) if stale else (shown >= last_saved)

            replica.resume()
            replica.wait_caught_up()
            as_of, held = _export(as_admin, study)
            assert held == everything and as_of >= max(datetime.fromisoformat(t) for _, _, t in everything)
