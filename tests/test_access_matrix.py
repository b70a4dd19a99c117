"""Every endpoint × every role while the study is blind (its independent round open), and what changes
once that round has closed. The walk in test_blindness.py checks that nothing leaks from what is allowed."""
from __future__ import annotations

import pytest
from django.test import Client
from django.urls import reverse

from annotation.services.phases import advance
from tests.factories import label_with

pytestmark = pytest.mark.django_db

ANON = (401, 403, 302)
# (url name, needs issue): status for admin (staff, not a member), lead, annotator, outsider, anonymous.
MATRIX = [
    ("annotation:study_detail", False, 200, 200, 200, 404, 302),
    ("annotation:queue", False, 403, 200, 200, 404, 302),
    ("annotation:issue_list", False, 200, 200, 200, 404, 302),
    ("annotation:issue_label", True, 403, 200, 200, 404, 302),
    ("annotation:review_list", False, 200, 200, 403, 404, 302),
    ("annotation:history", False, 200, 200, 403, 404, 302),
    ("annotation:history_csv", False, 200, 200, 403, 404, 302),
    ("annotation:members", False, 200, 200, 403, 404, 302),
    ("annotation:study_settings", False, 200, 200, 403, 404, 302),
    ("annotation:adjudication_list", False, 200, 200, 403, 404, 302),
    ("annotation:adjudicate", True, 200, 200, 403, 404, 302),
    ("annotation:study_export_csv", False, 200, 200, 403, 404, 302),
    ("annotation:corpus_csv", False, 200, 200, 403, 404, 302),
    ("annotation:corpus_jsonl", False, 200, 200, 403, 404, 302),
    ("annotation:study_json", False, 200, 200, 403, 404, 302),
    ("annotation:dataset_card", False, 200, 200, 403, 404, 302),
    ("annotation:statistics", False, 200, 200, 403, 404, 302),
    ("annotation:table1_csv", False, 200, 200, 403, 404, 302),
    ("annotation:figure3_csv", False, 200, 200, 403, 404, 302),
    ("taxonomy:interviews", False, 200, 200, 403, 404, 302),
    ("taxonomy:interview_results", False, 200, 200, 403, 404, 302),
    ("taxonomy:interview_results_csv", False, 200, 200, 403, 404, 302),
    ("taxonomy:guide", False, 200, 200, 403, 404, 302),
    ("annotation:comparison", False, 200, 200, 403, 404, 302),
    ("annotation:comparison_csv", False, 200, 200, 403, 404, 302),
    ("agreement:study_agreement", False, 200, 200, 403, 404, 302),
    ("api:study_detail", False, 200, 200, 200, 404, ANON),
    ("api:report_list", False, 200, 200, 200, 404, ANON),
    ("api:report_detail", True, 200, 200, 200, 404, ANON),
    ("api:queue_next", False, 403, 200, 200, 404, ANON),
    ("api:label_list", False, 200, 200, 200, 404, ANON),
    ("api:label_history", False, 200, 200, 403, 404, ANON),
    ("api:comment_list", True, 200, 200, 403, 404, ANON),
    ("api:study_agreement", False, 200, 200, 403, 404, ANON),
]
ROLES = ["admin", "lead", "annotator_a", "outsider", None]


@pytest.fixture
def labeled(study, lead, annotator_a, annotator_b):
    issue = study.issues.order_by("created_at", "id").first()
    label_with(annotator_b, study, issue, "C.1", note="bob's")
    label_with(lead, study, issue, "C.2", note="lead's")
    return study, issue


@pytest.mark.parametrize("name, with_issue, expected", [(r[0], r[1], r[2:]) for r in MATRIX],
                         ids=[row[0] for row in MATRIX])
@pytest.mark.parametrize("role_index", range(len(ROLES)), ids=[r or "anonymous" for r in ROLES])
def test_who_may_open_what_while_blind(request, labeled, name, with_issue, expected, role_index):
    study, issue = labeled
    role = ROLES[role_index]
    client = Client()
    if role:
        client.force_login(request.getfixturevalue(role))
    args = [study.pk, issue.pk] if with_issue else [study.pk]
    status = client.get(reverse(name, args=args)).status_code
    allowed = expected[role_index]
    assert status in (allowed if isinstance(allowed, tuple) else (allowed,)), f"{name} as {role}: {status}"


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
