from __future__ import annotations

import re

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


def test_htmx_submit_sends_the_page_on_to_the_next_report(client_as, study, annotator_a):
    import json

    issues = list(study.issues.order_by("created_at", "id"))
    client = client_as(annotator_a)
    response = _post_label(client, study, issues[0], htmx=True, type="NR")
    location = json.loads(response.headers["HX-Location"])
    assert response.status_code == 200 and location["target"] == "#workspace"
    html = client.get(location["path"], headers={"HX-Request": "true"}).content.decode()
    assert "<html" not in html and 'id="workspace"' in html and issues[1].title in html


def test_invalid_label_comes_back_with_a_message_and_saves_nothing(client_as, study, annotator_a):
    issue = study.issues.first()
    response = _post_label(client_as(annotator_a), study, issue, htmx=True, type=category("A").pk,
                           theme=category("C.1").pk)
    assert "C.1 does not belong to A" in response.content.decode()
    assert not Label.objects.exists()
    # Posted as a whole page (no script): back to the report's own page with the message, never a page at the
    # form's address that a reload would post again; that address itself leads to the report.
    client = client_as(annotator_a)
    response = _post_label(client, study, issue)
    page = reverse("annotation:issue_label", args=[study.pk, issue.pk])
    assert response.status_code == 302 and response.url == page
    assert "Not saved: Choose a type" in client.get(page).content.decode()
    response = client.get(reverse("annotation:label_submit", args=[study.pk, issue.pk]))
    assert response.status_code == 302 and response.url == page
    assert not Label.objects.exists()


def test_a_revisited_label_shows_its_own_branch_of_the_codebook_with_definitions(client_as, study, annotator_a):
    import re

    from tests.factories import label_with

    issue = study.issues.order_by("created_at", "id").first()
    label_with(annotator_a, study, issue, "A.1.ii")
    html = client_as(annotator_a).get(reverse("annotation:issue_label", args=[study.pk, issue.pk])).content.decode()
    shown = re.findall(r'<fieldset data-level="(\w+)" data-parent="(\d+)" >', html)
    assert shown == [("theme", str(category("A").pk)), ("sub_theme", str(category("A.1").pk))]
    assert category("A.1.ii").definition in html
    assert re.search(rf'value="{category("A.1.ii").pk}"[^>]*checked', html)


def test_skip_with_a_reason_puts_the_report_last(client_as, study, annotator_a):
    client = client_as(annotator_a)
    issues = list(study.issues.order_by("created_at", "id"))
    client.post(reverse("annotation:label_skip", args=[study.pk, issues[0].pk]), {"reason": "Needs CUDA knowledge"})
    page = client.get(reverse("annotation:queue", args=[study.pk])).content.decode()
    assert issues[1].title in page
    listed = client.get(reverse("annotation:issue_list", args=[study.pk]), {"mine": "skipped"}).content.decode()
    assert "Needs CUDA knowledge" in listed and issues[0].title in listed and issues[1].title not in listed
    for issue in issues[1:]:
        _post_label(client, study, issue, type="NR")
    page = client.get(reverse("annotation:queue", args=[study.pk])).content.decode()
    assert issues[0].title in page and "skipped: Needs CUDA knowledge" in page


def test_skip_without_a_reason_is_refused_and_changes_nothing(client_as, study, annotator_a):
    from annotation.models import Assignment

    issue = study.issues.order_by("created_at", "id").first()
    client = client_as(annotator_a)
    response = client.post(reverse("annotation:label_skip", args=[study.pk, issue.pk]), {"reason": ""}, follow=True)
    assert response.redirect_chain[0][1] == 302 and "say why you skip" in response.content.decode()
    assert not Assignment.objects.filter(skipped=True).exists()


def test_previous_goes_back_to_the_report_just_labeled(client_as, study, annotator_a):
    client = client_as(annotator_a)
    issues = list(study.issues.order_by("created_at", "id"))
    _post_label(client, study, issues[0], type="NR", note="first one")
    page = client.get(reverse("annotation:queue", args=[study.pk])).content.decode()
    previous_url = re.search(r'href="([^"]+)">Previous', page).group(1).replace("&amp;", "&")
    response = client.get(previous_url, follow=True)
    assert issues[0].title in response.content.decode() and "first one" in response.content.decode()


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
    from annotation.services.queues import fill_queues, plan_round
    from tests.factories import label_with

    first = study.issues.order_by("created_at", "id").first()
    label_with(annotator_a, study, first, "C.1")
    study.rounds.update(closed_at=timezone.now())
    round_2 = Round.objects.create(study=study, number=2)
    study.current_round = round_2
    study.save()
    fill_queues(round_2, plan_round(round_2, [annotator_a.pk, annotator_b.pk]))
    label_with(annotator_b, study, first, "C.1", round=round_2)
    # In round 2 alice has labeled nothing: neither her round-1 label nor bob's round-2 label may hide a report.
    page = client_as(annotator_a).get(reverse("annotation:queue", args=[study.pk])).content.decode()
    assert first.title in page and "0 of 3 labeled" in page


def test_ids_past_64_bits_name_nothing_and_choices_past_them_are_refused(client_as, study, annotator_a):
    """A path id of 20 digits is a 404 (SQLite cannot even bind it); a theme id past 64 bits is a form error."""
    client = client_as(annotator_a)
    big = 10**20
    issue = study.issues.first()
    chosen = {"type": category("C").pk, "theme": category("C.3").pk, "reason": "x"}
    for path in (f"/studies/{study.pk}/issues/{big}/label/", f"/studies/{study.pk}/issues/{big}/skip/",
                 f"/studies/{big}/issues/{issue.pk}/label/"):
        assert client.post(path, chosen).status_code == 404
    assert client.get(f"/studies/{big}/queue/").status_code == 404
    for field in ("theme", "sub_theme"):
        response = client.post(reverse("annotation:label_submit", args=[study.pk, issue.pk]), {**chosen, field: big},
                               follow=True)
        assert response.redirect_chain and b"less than or equal to" in response.content
    assert not Label.objects.filter(annotator=annotator_a).exists()
