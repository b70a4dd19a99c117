"""Every change to a label: who, when, before, after; visible to the lead, exported."""
from __future__ import annotations

import csv
import io

import pytest
from django.urls import reverse

from tests.factories import category, label_with

pytestmark = pytest.mark.django_db


@pytest.fixture
def revised(study, annotator_a, client_as):
    issue = study.issues.order_by("created_at", "id").first()
    client = client_as(annotator_a)
    url = reverse("annotation:label_submit", args=[study.pk, issue.pk])
    client.post(url, {"type": category("C").pk, "theme": category("C.1").pk, "note": "first"})
    client.post(url, {"type": category("C").pk, "theme": category("C.2").pk, "note": "second"})
    return study, issue


def test_the_lead_sees_before_and_after_with_who_and_when(client_as, revised, lead):
    study, issue = revised
    page = client_as(lead).get(reverse("annotation:history", args=[study.pk])).content.decode()
    assert page.index("C.2") < page.index("first → second")
    assert "changed" in page and "created" in page and "alice" in page


def test_history_is_exported_as_csv(client_as, revised, lead):
    study, issue = revised
    response = client_as(lead).get(reverse("annotation:history_csv", args=[study.pk]))
    rows = list(csv.DictReader(io.StringIO(b"".join(response.streaming_content).decode())))
    assert [(r["kind"], r["before"], r["after"], r["note_before"], r["note_after"], r["changed_by"]) for r in rows] == [
        ("changed", "C.1", "C.2", "first", "second", "alice"),
        ("created", "", "C.1", "", "first", "alice"),
    ]
    assert rows[0]["number"] == issue.number


def test_history_api_for_the_lead_only(client_as, revised, lead, annotator_a):
    study, _ = revised
    url = reverse("api:label_history", args=[study.pk])
    assert client_as(annotator_a).get(url).status_code == 403
    data = client_as(lead).get(url).json()
    assert [(c["before"], c["after"]) for c in data["results"]] == [("C.1", "C.2"), ("", "C.1")]


def test_annotators_cannot_read_the_history(client_as, study, annotator_a, annotator_b):
    label_with(annotator_b, study, study.issues.first(), "C.1", note="bob's secret")
    client = client_as(annotator_a)
    assert client.get(reverse("annotation:history", args=[study.pk])).status_code == 403
    assert client.get(reverse("annotation:history_csv", args=[study.pk])).status_code == 403


def test_every_save_is_recorded_and_the_history_manager_class_is_made_once(revised, annotator_a):
    from annotation.models import Label

    study, issue = revised
    label = Label.objects.get(study=study, issue=issue, annotator=annotator_a)
    assert [version.note for version in label.history.order_by("history_id")] == ["first", "second"]
    # simple_history alone builds a new class on every read of `.history`, and reads it once per record written.
    assert type(label.history) is type(Label.objects.get(pk=label.pk).history)
    assert type(Label.history) is type(label.history)
