"""The API enforces the same rules as the screens: membership, codebook consistency, one current label."""
from __future__ import annotations

import pytest
from django.urls import reverse

from annotation.models import Label
from tests.factories import category

pytestmark = pytest.mark.django_db


def _post(client, study, **data):
    return client.post(reverse("api:label_list", args=[study.pk]), data, content_type="application/json")


def test_annotator_labels_and_revises_through_the_api(client_as, study, annotator_a):
    client = client_as(annotator_a)
    issue = study.issues.first()
    response = _post(client, study, issue=issue.pk, type=category("C").pk, theme=category("C.3").pk, note="NCCL")
    assert response.status_code == 201 and response.json()["theme_code"] == "C.3"
    _post(client, study, issue=issue.pk, type=category("C").pk, theme=category("C.1").pk)
    label = Label.objects.get()
    assert label.code == "C.1" and label.history.count() == 2


def test_api_rejects_a_theme_of_another_type_naming_the_field(client_as, study, annotator_a):
    response = _post(client_as(annotator_a), study, issue=study.issues.first().pk, type=category("A").pk,
                     theme=category("C.1").pk)
    assert response.status_code == 400 and "theme" in response.json()
    assert not Label.objects.exists()


def test_outsiders_cannot_see_or_label(client_as, study, outsider):
    client = client_as(outsider)
    assert client.get(reverse("api:label_list", args=[study.pk])).status_code == 404
    assert _post(client, study, issue=study.issues.first().pk, is_relevant=False).status_code == 404


def test_study_list_shows_only_the_users_studies_with_role(client_as, study, annotator_a, outsider):
    data = client_as(annotator_a).get(reverse("api:study_list")).json()
    assert [(s["name"], s["role"]) for s in data["results"]] == [("Demo study", "annotator")]
    assert client_as(outsider).get(reverse("api:study_list")).json()["results"] == []


def test_openapi_schema_describes_the_api(client_as, annotator_a):
    schema = client_as(annotator_a).get(reverse("api:schema")).content.decode()
    assert "/api/studies/{study_id}/labels/" in schema and "/api/studies/{study_id}/agreement/" in schema


def test_anonymous_api_requests_are_refused(client, study):
    assert client.get(reverse("api:label_list", args=[study.pk])).status_code in {401, 403}
