from __future__ import annotations

import pytest
from django.urls import reverse

from annotation.models import Label
from tests.factories import category, make_issue, make_study

pytestmark = pytest.mark.django_db


def _post_label(client, study, issue, htmx=False, **data):
    headers = {"HX-Request": "true"} if htmx else {}
    return client.post(reverse("annotation:label_submit", args=[study.pk, issue.pk]), data, headers=headers)


def test_queue_shows_the_next_unlabeled_report_with_summary_and_progress(client_as, study, annotator_a):
    first = study.issues.order_by("created_at", "id").first()
    page = client_as(annotator_a).get(reverse("annotation:queue", args=[study.pk])).content.decode()
    assert first.title in page and "Summary" in page and "0 of 3 labeled" in page


def test_submitting_moves_to_the_next_report(client_as, study, annotator_a):
    client = client_as(annotator_a)
    issues = list(study.issues.order_by("created_at", "id"))
    response = _post_label(client, study, issues[0], type=category("C").pk, theme=category("C.1").pk, note="OOM")
    assert response.status_code == 302
    label = Label.objects.get(annotator=annotator_a)
    assert (label.issue, label.code, label.note) == (issues[0], "C.1", "OOM")
    page = client.get(reverse("annotation:queue", args=[study.pk])).content.decode()
    assert issues[1].title in page and "1 of 3 labeled" in page


def test_htmx_submit_returns_the_next_workspace_fragment(client_as, study, annotator_a):
    issues = list(study.issues.order_by("created_at", "id"))
    response = _post_label(client_as(annotator_a), study, issues[0], htmx=True, type="NR")
    html = response.content.decode()
    assert response.status_code == 200 and "<html" not in html
    assert 'id="workspace"' in html and issues[1].title in html


def test_invalid_label_comes_back_with_a_message_and_saves_nothing(client_as, study, annotator_a):
    issue = study.issues.first()
    response = _post_label(client_as(annotator_a), study, issue, htmx=True, type=category("A").pk,
                           theme=category("C.1").pk)
    assert "C.1 does not belong to A" in response.content.decode()
    assert not Label.objects.exists()
    response = _post_label(client_as(annotator_a), study, issue)
    assert response.status_code == 400 and "Choose a type" in response.content.decode()


def test_choices_narrow_to_the_chosen_type_and_theme(client_as, study, annotator_a):
    url = reverse("annotation:label_choices", args=[study.pk])
    client = client_as(annotator_a)
    html = client.get(url, {"type": category("A").pk}, headers={"HX-Request": "true"}).content.decode()
    assert "A.1" in html and "C.1" not in html and "<html" not in html
    html = client.get(url, {"type": category("A").pk, "theme": category("A.1").pk}).content.decode()
    assert "A.1.ii" in html and "A.2.i" not in html


def test_skip_puts_the_report_last(client_as, study, annotator_a):
    client = client_as(annotator_a)
    issues = list(study.issues.order_by("created_at", "id"))
    client.post(reverse("annotation:label_skip", args=[study.pk, issues[0].pk]))
    page = client.get(reverse("annotation:queue", args=[study.pk])).content.decode()
    assert issues[1].title in page


def test_all_done_when_every_report_is_labeled(client_as, lead, annotator_a):
    issue = make_issue()
    study = make_study(lead, [annotator_a], issues=[issue])
    client = client_as(annotator_a)
    _post_label(client, study, issue, type="NR")
    assert "All done" in client.get(reverse("annotation:queue", args=[study.pk])).content.decode()


def test_issue_body_is_sanitised_on_the_labeling_page(client_as, lead, annotator_a):
    issue = make_issue(body="Hello <script>alert('owned')</script> <img src=x onerror=alert(1)> **world**")
    study = make_study(lead, [annotator_a], issues=[issue])
    page = client_as(annotator_a).get(reverse("annotation:queue", args=[study.pk])).content.decode()
    assert "<strong>world</strong>" in page
    assert "alert('owned')" not in page and "onerror" not in page


def test_outsiders_get_404_for_a_study_they_are_not_in(client_as, study, outsider):
    assert client_as(outsider).get(reverse("annotation:queue", args=[study.pk])).status_code == 404


def test_anonymous_users_are_sent_to_log_in(client, study):
    response = client.get(reverse("annotation:queue", args=[study.pk]))
    assert response.status_code == 302 and "/accounts/login/" in response.url



def test_queue_counts_only_this_users_labels_in_this_round(client_as, study, annotator_a, annotator_b):
    from django.utils import timezone

    from annotation.models import Round
    from tests.factories import label_with

    first = study.issues.order_by("created_at", "id").first()
    label_with(annotator_a, study, first, "C.1")
    study.rounds.update(closed_at=timezone.now())
    round_2 = Round.objects.create(study=study, number=2)
    label_with(annotator_b, study, first, "C.1", round=round_2)
    # In round 2 alice has labeled nothing: neither her round-1 label nor bob's round-2 label may hide a report.
    page = client_as(annotator_a).get(reverse("annotation:queue", args=[study.pk])).content.decode()
    assert first.title in page and "0 of 3 labeled" in page
