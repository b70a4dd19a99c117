"""The README's first command, `make run`, started as written from a fresh clone: it installs, loads the demo, serves
the pages, and its worker does the background work — the demo study's agreement computed, a file import finished
with its progress, a notice digest sent by beat — then Ctrl+C stops every process it started."""
from __future__ import annotations

import os
import subprocess

import pytest
import requests

from tests.started import (
    demo_passwords,
    free_port,
    fresh_clone,
    get_ok,
    import_a_file,
    manage_in,
    newcomer_env,
    signed_in,
    spare_redis_url,
    start,
    wait_for,
)

pytestmark = pytest.mark.slow


def test_make_run_does_its_background_work_and_ctrl_c_stops_it_all(tmp_path):
    clone = fresh_clone(tmp_path)
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    # Digests are looked for every 5 s rather than hourly, so that beat's work is seen within the test.
    env = newcomer_env(NOTICE_DIGEST_EVERY="5")
    run = start(["make", "run", f"PORT={port}"], clone, env, tmp_path / "make-run.log")
    try:
        wait_for("page", lambda: get_ok(f"{base}/accounts/login/"), 600, run)
        assert "No such option" not in run.output() and "Usage: celery" not in run.output()
        ready = wait_for("worker", lambda: get_ok(f"{base}/readyz"), 90, run).json()
        assert ready["checks"]["worker"]["ok"] and "statistics" in ready["checks"]["worker"]["detail"]

        # The lead asks for the agreement of the study's seven annotators: 202 while the worker computes, then 200.
        lead = ("lead", demo_passwords(clone)["lead"])
        studies = requests.get(f"{base}/api/studies/", auth=lead, timeout=10).json()["results"]
        seven = next(s["id"] for s in studies if "seven annotators" in s["name"])
        first = requests.get(f"{base}/api/studies/{seven}/agreement/", auth=lead, timeout=30)
        assert first.status_code in {200, 202}
        figures = wait_for("agreement", lambda: get_ok(f"{base}/api/studies/{seven}/agreement/", auth=lead), 120,
                           run, every=2).json()
        assert figures["type"]["n_raters"] == 7 and figures["type"]["value"] is not None

        # A file import, sent to the worker, finishes with its progress.
        manage_in(clone, env, "createsuperuser", "--noinput", "--username", "admin", "--email", "admin@example.org",
                DJANGO_SUPERUSER_PASSWORD="a newcomer's admin 1")
        admin = signed_in(base, "admin", "a newcomer's admin 1")
        assert "succeeded" in import_a_file(base, admin, tmp_path)

        # Beat finds the lead's unread notice (ties wait in the demo) once the lead has an address, and the worker
        # sends the digest: on `make run`, e-mail is printed to the console.
        manage_in(clone, env, "shell", "-c", "from django.contrib.auth import get_user_model; "
                "get_user_model().objects.filter(username='lead').update(email='lead@example.org')")
        wait_for("digest", lambda: "To: lead@example.org" in run.output(), 90, run)
    finally:
        status = run.ctrl_c() if run.alive() else run.process.returncode
        left = run.left()
        run.kill()
    assert not left, f"still running after Ctrl+C: {left}"
    assert status in {0, 2, 130, -2}, status  # make reports an interrupted recipe as 2
    with pytest.raises(requests.ConnectionError):
        requests.get(f"{base}/healthz", timeout=5)


def _postgres_url() -> str | None:
    url = os.environ.get("DATABASE_URL", "")
    return url if url.startswith(("postgres://", "postgresql://")) else None


@pytest.mark.skipif(_postgres_url() is None or not os.environ.get("REDIS_URL"),
                    reason="the README's PostgreSQL path needs PostgreSQL and Redis (CI has both)")
def test_the_readme_postgresql_path_with_make_worker_and_the_server(tmp_path):
    """As the README gives it: DATABASE_URL and REDIS_URL exported, `make migrate demo`, `make worker &`, then
    manage.py runserver; the worker computes the seven annotators' agreement, and Ctrl+C stops both."""
    import psycopg

    clone = fresh_clone(tmp_path)
    server_url = _postgres_url().rsplit("/", 1)[0]
    database = f"concord_readme_{os.getpid()}"
    with psycopg.connect(f"{server_url}/postgres", autocommit=True) as admin:
        admin.execute(f"DROP DATABASE IF EXISTS {database}")
        admin.execute(f"CREATE DATABASE {database}")
    # A Redis database of its own, so that the suite's own workers (on REDIS_URL's) do not take these tasks.
    redis = spare_redis_url()
    env = newcomer_env(DATABASE_URL=f"{server_url}/{database}", REDIS_URL=redis)
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    worker = server = None
    try:
        done = subprocess.run(["make", "migrate", "demo"], cwd=clone, env=env, capture_output=True, text=True,
                              timeout=900)
        assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
        worker = start(["make", "worker"], clone, env, tmp_path / "make-worker.log")
        server = start([".venv/bin/python", "manage.py", "runserver", f"127.0.0.1:{port}"], clone, env,
                       tmp_path / "runserver.log")
        wait_for("page", lambda: get_ok(f"{base}/accounts/login/"), 120, server)
        ready = wait_for("worker", lambda: get_ok(f"{base}/readyz"), 90, worker).json()
        assert ready["checks"]["database"]["detail"] == "postgresql" and ready["checks"]["broker"]["ok"]
        lead = ("lead", demo_passwords(clone)["lead"])
        studies = requests.get(f"{base}/api/studies/", auth=lead, timeout=10).json()["results"]
        seven = next(s["id"] for s in studies if "seven annotators" in s["name"])
        figures = wait_for("agreement", lambda: get_ok(f"{base}/api/studies/{seven}/agreement/", auth=lead), 120,
                           worker, every=2).json()
        assert figures["type"]["n_raters"] == 7 and figures["type"]["value"] is not None
    finally:
        left = []
        for started in (server, worker):
            if started is not None:
                if started.alive():
                    started.ctrl_c()
                left += started.left()
                started.kill()
        with psycopg.connect(f"{server_url}/postgres", autocommit=True) as admin:
            admin.execute(f"DROP DATABASE IF EXISTS {database} WITH (FORCE)")
    assert not left, f"still running after Ctrl+C: {left}"
