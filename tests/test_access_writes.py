"""Writes refused to those who may not write, and what members may see once the independent round closes."""
from __future__ import annotations

import pytest
from django.urls import reverse

from annotation.services.phases import advance
from tests.factories import label_with

pytestmark = pytest.mark.django_db


@pytest.fixture
def labeled(study, lead, annotator_a, annotator_b):
    issue = study.issues.order_by("created_at", "id").first()
    label_with(annotator_b, study, issue, "C.1", note="bob's")
    label_with(lead, study, issue, "C.2", note="lead's")
    return study, issue


def test_writes_are_refused_to_those_who_may_not_write(client_as, labeled, annotator_a, outsider, admin):
    study, issue = labeled
    from annotation.models import Invitation, Label

    for user, expected in ((outsider, 404), (annotator_a, 403)):
        client = client_as(user)
        assert client.post(reverse("annotation:study_advance", args=[study.pk])).status_code == expected
        assert client.post(reverse("annotation:invitation_create", args=[study.pk]),
                           {"role": "lead", "days": 2}).status_code == expected
    assert client_as(outsider).post(reverse("api:label_list", args=[study.pk]),
                                    {"issue": issue.pk, "is_relevant": False}).status_code == 404
    # A staff member who is not in the study may read it but has no queue to label from.
    response = client_as(admin).post(reverse("api:label_list", args=[study.pk]),
                                     {"issue": issue.pk, "is_relevant": False})
    assert response.status_code == 403
    assert not Invitation.objects.exists() and Label.objects.count() == 2


def test_once_the_independent_round_closes_members_see_each_others_labels(client_as, labeled, lead, annotator_a):
    study, issue = labeled
    client = client_as(annotator_a)
    assert {r["annotator"] for r in client.get(reverse("api:label_list", args=[study.pk])).json()["results"]} == set()
    advance(study, lead, confirm_missing=True)
    names = {r["annotator"] for r in client.get(reverse("api:label_list", args=[study.pk])).json()["results"]}
    assert names == {"bob", "lead"}
    assert client.get(reverse("annotation:review_list", args=[study.pk])).status_code == 200
    assert client.get(reverse("agreement:study_agreement", args=[study.pk])).status_code == 200
    # History and exports remain the lead's tools.
    assert client.get(reverse("annotation:history", args=[study.pk])).status_code == 403
