"""The annotators' dashboard on a seeded study, against figures worked out by hand."""
from __future__ import annotations

import datetime as dt

import pytest
from django.urls import reverse

from annotation.models import Label, Round
from annotation.selectors.annotators import AnnotatorRow, _flag, annotator_rows
from annotation.services.phases import advance
from annotation.services.queues import skip
from annotation.timing import seconds_since_shown, shown_token
from tests.factories import label_with, make_study

pytestmark = pytest.mark.django_db
NOW = dt.datetime(2026, 11, 20, 12, 0, tzinfo=dt.UTC)


@pytest.fixture
def seeded(study, annotator_a, annotator_b, annotator_c):
    one, two, three = study.issues.order_by("created_at", "id")
    round = study.rounds.get(number=1)
    Round.objects.filter(pk=round.pk).update(opened_at=NOW - dt.timedelta(days=5))
    label_with(annotator_a, study, one, "C.1")
    label_with(annotator_a, study, one, "C.1.i")  # a revision, same theme
    for person, issue, code, seconds, day in ((annotator_a, two, "C.2", 20, 20), (annotator_a, three, "C.3", 60, 20),
                                              (annotator_b, one, "C.1", 30, 20), (annotator_b, two, "C.1", 50, 20)):
        label_with(person, study, issue, code)
        Label.objects.filter(annotator=person, issue=issue).update(
            seconds=seconds, created_at=dt.datetime(2026, 11, day, 9, 0, tzinfo=dt.UTC))
    Label.objects.filter(annotator=annotator_a, issue=one).update(
        seconds=10, created_at=dt.datetime(2026, 11, 19, 9, 0, tzinfo=dt.UTC))
    skip(annotator_c, round, three.pk, "The report is unclear")
    round.refresh_from_db()
    return study, round


def test_the_figures_match_the_hand_computed_ones(seeded, lead):
    study, round = seeded
    rows = {r.username: r for r in annotator_rows(lead, study, round, now=NOW)}
    a, b, c = rows["alice"], rows["bob"], rows["charlie"]
    assert (a.done, a.total, b.done, b.total, c.done, c.total) == (3, 3, 2, 3, 0, 3)
    assert a.per_day[-2:] == [(dt.date(2026, 11, 19), 1), (dt.date(2026, 11, 20), 2)] and len(a.per_day) == 14
    assert (a.median_seconds, a.timed, b.median_seconds, b.timed) == (20, 3, 40, 2)
    # Report 1: alice C.1(.i) and bob C.1 agree; report 2: C.2 against C.1; report 3: alice alone.
    assert (a.agreement, a.pairs, b.agreement, b.pairs) == (0.5, 2, 0.5, 2)
    assert a.by_week == [("2026-W47", 0.5, 2)]
    assert (a.revisions, b.revisions) == (1, 0)
    assert (c.skips, c.skip_reasons) == (1, [("The report is unclear", 1)])
    assert c.flags == ["stuck: no label yet, 3 left"] and a.flags == [] and b.flags == []
    later = {r.username: r for r in annotator_rows(lead, study, round, now=NOW + dt.timedelta(days=4))}
    assert later["bob"].flags == ["stuck: no label for 4 days, 1 left"] and later["alice"].flags == []


def test_the_page_is_the_leads_and_admins_only(seeded, lead, annotator_a, admin, client_as):
    study, _ = seeded
    url = reverse("annotation:annotators", args=[study.pk])
    assert client_as(annotator_a).get(url).status_code == 403
    page = client_as(admin).get(url).content.decode()
    assert 'data-annotator="charlie"' in page and "stuck: no label yet, 3 left" in page
    assert "The report is unclear (1)" in page and 'role="img"' in page
    assert not annotator_rows(annotator_a, study, study.rounds.get(number=1))


def test_time_per_report_is_measured_by_the_server_and_kept_with_the_label(study, annotator_a, client_as):
    issue = study.issues.order_by("created_at", "id").first()
    token = shown_token(issue.pk)
    assert seconds_since_shown(token, issue.pk) == 0
    assert seconds_since_shown(token, issue.pk + 1) is None  # another report's page
    assert seconds_since_shown(token[:-2] + "xx", issue.pk) is None and seconds_since_shown("", issue.pk) is None
    chosen = {"type": study.codebook.categories.get(code="C").pk, "theme": study.codebook.categories.get(
        code="C.1").pk, "shown": token}
    client_as(annotator_a).post(reverse("annotation:label_submit", args=[study.pk, issue.pk]), chosen,
                                headers={"HX-Request": "true"})
    assert Label.objects.get(annotator=annotator_a).seconds == 0


def test_slow_fast_and_drifting_against_the_others_and_oneself():
    rows = [AnnotatorRow("a", "annotator", median_seconds=10), AnnotatorRow("b", "annotator", median_seconds=30),
            AnnotatorRow("c", "annotator", median_seconds=90, agreement=0.75, pairs=32,
                         by_week=[("2026-W46", 0.9, 20), ("2026-W47", 0.5, 12)])]
    _flag(rows, NOW, Round(closed_at=NOW))
    assert [r.flags for r in rows] == [
        ["fast: 10 s per report, the middle is 30 s"], [],
        ["slow: 90 s per report, the middle is 30 s", "drifting: 50% agreement in 2026-W47, 75% overall"]]


def test_the_page_shows_the_independent_round_by_default_and_any_round_chosen(client_as, lead, annotator_a,
                                                                             annotator_b):
    study = make_study(lead, [annotator_a, annotator_b], n_issues=2)
    first, second = study.issues.order_by("created_at", "id")
    for person in (lead, annotator_a, annotator_b):
        label_with(person, study, first, "C.1")
        label_with(person, study, second, "A.1" if person == annotator_b else "C.2")
    advance(study, lead, confirm_missing=True)  # review: only the lead has re-labeled nothing yet
    client = client_as(lead)
    url = reverse("annotation:annotators", args=[study.pk])
    page = client.get(url).content.decode()
    assert "Round 1 (independent" in page and all(name in page for name in ("alice", "bob"))
    review = client.get(url, {"round": 2}).content.decode()
    assert "Round 2 (review" in review
    assert client.get(url, {"round": "x" * 40}).status_code == 200
