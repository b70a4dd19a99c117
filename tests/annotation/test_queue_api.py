"""The labeling loop through the API: next report, label, skip, progress — the pages' rules."""
from __future__ import annotations

import datetime

import pytest
from django.urls import reverse

from annotation.api import LabelSavedSerializer, ReportDetailSerializer, label_saved_data, report_detail_data
from annotation.models import Label, Queue
from ingest.models import Issue, Summary
from tests.factories import category, label_with

pytestmark = pytest.mark.django_db


def _next(client, study):
    return client.get(reverse("api:queue_next", args=[study.pk])).json()


def _label(client, study, **data):
    return client.post(reverse("api:label_list", args=[study.pk]), data, content_type="application/json")


def test_next_label_next_until_done(client_as, study, annotator_a):
    client = client_as(annotator_a)
    seen = []
    while (item := _next(client, study))["report"]:
        seen.append(item["report"]["id"])
        assert item["report"]["summary"] and "body" in item["report"]
        response = _label(client, study, issue=item["report"]["id"], type=category("C").pk, theme=category("C.3").pk)
        assert response.status_code == 201 and response.json()["theme_code"] == "C.3"
    assert seen == list(study.issues.order_by("created_at", "id").values_list("id", flat=True))
    assert _next(client, study)["progress"] == {"done": 3, "total": 3, "round_done": 3, "round_total": 12}


def test_progress_counts_everyone_but_shows_no_ones_labels(client_as, study, annotator_a, annotator_b):
    label_with(annotator_b, study, study.issues.first(), "C.1", note="bob's")
    data = _next(client_as(annotator_a), study)
    assert data["progress"] == {"done": 0, "total": 3, "round_done": 1, "round_total": 12}
    assert "bob" not in str(data)


def test_skipping_through_the_api_moves_the_report_last(client_as, study, annotator_a):
    client = client_as(annotator_a)
    first = _next(client, study)["report"]["id"]
    url = reverse("api:queue_skip", args=[study.pk])
    assert client.post(url, {"issue": first, "reason": ""}, content_type="application/json").status_code == 400
    assert client.post(url, {"issue": first, "reason": "unclear"}, content_type="application/json").status_code == 204
    assert _next(client, study)["report"]["id"] != first


def test_posting_the_same_label_twice_stores_one_label(client_as, study, annotator_a):
    client = client_as(annotator_a)
    issue = study.issues.first()
    for note in ("first", "second"):
        assert _label(client, study, issue=issue.pk, is_relevant=False, note=note).status_code == 201
    assert Label.objects.get().note == "second" and Queue.objects.get(annotator=annotator_a).done == 1


def test_bad_label_input_names_the_field_and_changes_nothing(client_as, study, annotator_a):
    client = client_as(annotator_a)
    issue = study.issues.first()
    response = _label(client, study, issue=issue.pk, type=category("A").pk, theme=category("C.1").pk)
    assert response.status_code == 400 and "C.1 does not belong to A" in response.json()["theme"][0]
    response = _label(client, study, issue=issue.pk, type=999999)
    assert response.status_code == 400 and "no type with id 999999" in response.json()["type"][0]
    response = _label(client, study, issue="x")
    assert response.status_code == 400 and "issue" in response.json()
    assert not Label.objects.exists() and Queue.objects.get(annotator=annotator_a).done == 0


def test_study_detail_reports_phase_round_and_counts(client_as, study, annotator_a):
    data = client_as(annotator_a).get(reverse("api:study_detail", args=[study.pk])).json()
    assert data["phase"] == "independent" and data["round"] == {"number": 1, "kind": "independent", "open": True}
    assert data["progress"]["total"] == 3 and data["role"] == "annotator"


def test_the_schema_documents_every_endpoint(client_as, annotator_a):
    schema = client_as(annotator_a).get(reverse("api:schema")).content.decode()
    for path in ("/queue/next/", "/queue/skip/", "/labels/", "/labels/history/", "/reports/{issue_id}/comments/",
                 "/reports/", "/studies/{study_id}/"):
        assert path in schema, path


def test_the_round_trips_answers_are_their_serializers(study, annotator_a):
    """The answers built directly (for speed) say exactly what the documented serializers say."""
    issues = list(study.issues.select_related("source"))
    Issue.objects.filter(pk=issues[0].pk).update(
        created_at=datetime.datetime(2025, 2, 3, 4, 5, 6, 789, tzinfo=datetime.UTC), platform_labels=["bug"],
        comments=[{"author": "x", "body": "y"}], state="open", comment_count=1)
    Summary.objects.create(issue=issues[1], backend="llm", prompt_version="1", content_hash="h", text="made")
    for issue in Issue.objects.filter(pk__in=[i.pk for i in issues]).select_related("source"):
        assert report_detail_data(issue) == dict(ReportDetailSerializer(issue).data)
    labels = [label_with(annotator_a, study, issues[0], "C.6.iv", note="a note"),
              label_with(annotator_a, study, issues[1], "NR"), label_with(annotator_a, study, issues[2], "A.3")]
    for label in labels:
        assert label_saved_data(label) == dict(LabelSavedSerializer(label).data)
