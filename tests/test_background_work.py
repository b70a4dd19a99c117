"""Background work seen from every process of a set-up: what the worker marks done, the server sees done; figures
follow the labels."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from django.urls import reverse

from agreement.models import AgreementSnapshot
from annotation.models import Study
from annotation.services.phases import advance
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
