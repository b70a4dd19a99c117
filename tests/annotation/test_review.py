"""The review round: every label and note with its annotator, a comment thread, re-labels."""
from __future__ import annotations

import re

import pytest
from django.urls import reverse

from annotation.models import Comment, Round
from annotation.services.phases import advance
from concord.form_tokens import new_token
from tests.factories import label_with

pytestmark = pytest.mark.django_db


@pytest.fixture
def in_review(study, lead, annotator_a, annotator_b, annotator_c):
    """The first report tied 2–2 at type (A against C); the others agreed."""
    issues = list(study.issues.order_by("created_at", "id"))
    for person, code in zip([lead, annotator_a, annotator_b, annotator_c], ["A.1", "A.2", "C.1", "C.2"],
                            strict=True):
        label_with(person, study, issues[0], code, note=f"note of {person.username}")
    for issue in issues[1:]:
        for person in (lead, annotator_a, annotator_b, annotator_c):
            label_with(person, study, issue, "C.1")
    advance(study, lead)
    study.refresh_from_db()
    return study, issues[0]


def test_review_page_shows_every_label_and_note_with_its_annotator(client_as, in_review, annotator_a):
    study, tied = in_review
    client = client_as(annotator_a)
    listed = client.get(reverse("annotation:review_list", args=[study.pk])).content.decode()
    assert tied.title in listed and "type" in listed
    page = client.get(reverse("annotation:queue", args=[study.pk])).content.decode()
    assert tied.title in page and "Under review" in page
    for name in ("lead", "alice", "bob", "charlie"):
        assert f"note of {name}" in page


def test_comments_are_posted_and_shown_in_the_thread(client_as, in_review, annotator_b, annotator_c):
    study, tied = in_review
    url = reverse("annotation:comment_post", args=[study.pk, tied.pk])
    form = {"body": "It crashes, so **bug**.", "once": new_token()}
    html = client_as(annotator_b).post(url, form, headers={"HX-Request": "true"}).content.decode()
    assert "<strong>bug</strong>" in html and "bob" in html
    page = client_as(annotator_c).get(reverse("annotation:queue", args=[study.pk])).content.decode()
    assert "<strong>bug</strong>" in page
    response = client_as(annotator_c).post(url, {"body": "  ", "once": new_token()}, headers={"HX-Request": "true"})
    assert "Write something" in response.content.decode() and Comment.objects.count() == 1
    # The same form sent twice (a double click) posts once.
    again = client_as(annotator_b).post(url, form, headers={"HX-Request": "true"}).content.decode()
    assert "sent already" in again and Comment.objects.count() == 1


def test_comments_only_on_reports_under_review(client_as, in_review, annotator_a):
    study, tied = in_review
    other = study.issues.exclude(pk=tied.pk).first()
    response = client_as(annotator_a).post(reverse("api:comment_list", args=[study.pk, other.pk]), {"body": "hi"})
    assert response.status_code == 400 and "not under review" in response.json()["issue"][0]


def test_a_re_label_in_review_is_its_own_label(client_as, in_review, annotator_b):
    study, tied = in_review
    review = study.rounds.get(kind=Round.Kind.REVIEW)
    c1 = study.codebook.categories.get(code="C.1")
    client_as(annotator_b).post(reverse("annotation:label_submit", args=[study.pk, tied.pk]),
                                {"type": c1.parent_id, "theme": c1.pk, "note": "agreed in the thread"})
    assert tied.labels.filter(round=review).get().note == "agreed in the thread"
    assert tied.labels.get(round__kind=Round.Kind.INDEPENDENT, annotator=annotator_b).code == "C.1"
    assert tied.labels.filter(round__kind=Round.Kind.INDEPENDENT).count() == 4


def test_the_review_is_closed_to_annotators_while_the_study_is_blind(client_as, study, annotator_a):
    issue = study.issues.first()
    client = client_as(annotator_a)
    assert client.get(reverse("annotation:review_list", args=[study.pk])).status_code == 403
    assert client.get(reverse("api:comment_list", args=[study.pk, issue.pk])).status_code == 403
    assert client.post(reverse("annotation:comment_post", args=[study.pk, issue.pk]), {"body": "x"}).status_code == 403


def test_the_re_label_form_starts_from_ones_independent_label(client_as, in_review, annotator_b):
    study, tied = in_review
    page = client_as(annotator_b).get(reverse("annotation:issue_label", args=[study.pk, tied.pk])).content.decode()
    assert "Filled in from your independent label (C.1)" in page
    c1 = study.codebook.categories.get(code="C.1")
    assert re.search(rf'<input type="radio" name="theme" value="{c1.pk}"[^>]* checked>', page)


def test_a_comment_through_the_api_has_the_forms_limit(client_as, in_review, annotator_a):
    study, tied = in_review
    url = reverse("api:comment_list", args=[study.pk, tied.pk])
    response = client_as(annotator_a).post(url, {"body": "x" * 10_001}, content_type="application/json")
    assert response.status_code == 400 and "10000" in response.json()["body"][0].replace(",", "")
    assert not Comment.objects.exists()
    assert client_as(annotator_a).post(url, {"body": "x" * 10_000}, content_type="application/json").status_code == 201
