"""A delegation to a jury against a double click, against people labeling at that moment and against its own end,
on PostgreSQL with two threads; and the jury's pages against hostile values, where a column's limits are real."""
from __future__ import annotations

from functools import partial

import pytest
from django.db import connection
from django.urls import reverse

from annotation.models import Assignment, Label, Queue, Seat
from annotation.services.labels import LabelError
from annotation.services.seats import SeatError
from machines.services import delegation
from tests.concurrency import at_once
from tests.factories import label_with
from tests.machines.test_delegation import _waiting, jury_study  # noqa: F401 - a fixture

pytestmark = [pytest.mark.django_db(transaction=True),
              pytest.mark.skipif(connection.vendor != "postgresql",
                                 reason="row locks need PostgreSQL (SQLite locks the file)")]


def _queues_whole(study) -> None:
    for queue in Queue.objects.filter(round__study=study):
        assert queue.total == Assignment.objects.filter(queue=queue).count()
        assert queue.done == Assignment.objects.filter(queue=queue, done=True).count()


def test_a_double_click_delegates_once(jury_study):  # noqa: F811 - the fixture
    study, lead, people, raters, _ = jury_study
    for _ in range(3):
        made = delegation.plan(study, raters)
        expected, seats = made.total, sum(1 for *_, n in made.per_person if n)
        outcomes = at_once(*[partial(delegation.apply, study, raters, expected=expected, by=lead)] * 2)
        refused = [o for o in outcomes if o is not None]
        assert len(refused) == 1 and isinstance(refused[0], SeatError)
        assert delegation.standing_jury_seats(study).count() == seats > 0
        _queues_whole(study)
        delegation.end(study, lead)
        _queues_whole(study)


def test_labeling_while_a_jury_takes_the_reports_keeps_each_report_in_one_place(jury_study):  # noqa: F811
    study, lead, people, raters, truth = jury_study
    third = people[2]
    made = delegation.plan(study, raters)
    racing = sorted(set(made.votes) & _waiting(study, third))[:4]

    def label(issue_id):
        return lambda: label_with(third, study, study.issues.get(pk=issue_id), truth[issue_id])

    outcomes = at_once(partial(delegation.apply, study, raters, expected=made.total, by=lead),
                       *(label(i) for i in racing))
    labeled = set(Label.objects.filter(annotator=third, issue_id__in=racing).values_list("issue_id", flat=True))
    seated = set(Seat.objects.filter(study=study, annotator=third).values_list("labels__issue_id", flat=True))
    assert not labeled & seated
    for i, outcome in zip(racing, outcomes[1:], strict=True):
        assert (outcome is None) == (i in labeled) and (outcome is None or isinstance(outcome, LabelError))
    # Either the delegation came first and every racing label was refused, or a label came first and the
    # delegation, seeing another total than the page's, changed nothing.
    if isinstance(outcomes[0], Exception):
        assert isinstance(outcomes[0], SeatError) and labeled and not Seat.objects.filter(study=study).exists()
    else:
        assert not labeled and set(racing) <= seated
    _queues_whole(study)


def test_delegating_and_ending_at_once_leave_the_queues_whole(jury_study):  # noqa: F811
    study, lead, people, raters, _ = jury_study
    before = {p.pk: _waiting(study, p) for p in people}
    for _ in range(3):
        expected = delegation.plan(study, raters).total
        at_once(partial(delegation.apply, study, raters, expected=expected, by=lead),
                partial(delegation.end, study, lead))
        _queues_whole(study)
        standing = delegation.standing_jury_seats(study)
        for person in people:
            waiting = _waiting(study, person)
            mine = set(standing.filter(annotator=person).values_list("labels__issue_id", flat=True)) - {None}
            assert waiting | mine == before[person.pk] and not waiting & mine
        delegation.end(study, lead)
        assert all(_waiting(study, p) == before[p.pk] for p in people)


HOSTILE = ["nan", "inf", "-1", "2", "1e400", "x" * 10_000, "0,8", " ", "0x1"]


def test_hostile_thresholds_raters_and_totals_change_nothing_and_say_what(jury_study, client_as):  # noqa: F811
    study, lead, people, raters, _ = jury_study
    client = client_as(lead)
    page = reverse("machines:jury", args=[study.pk])
    url = reverse("machines:delegate", args=[study.pk])
    ids = [r.pk for r in raters]
    expected = delegation.plan(study, raters).total
    for value in HOSTILE:
        for field in ("alpha", "confidence"):
            shown = client.get(page, {"rater": ids, field: value})
            assert shown.status_code == 200 and "the thresholds are numbers from 0 to 1" in shown.content.decode()
            response = client.post(url, {"rater": ids, field: value, "expected": expected}, follow=True)
            assert response.status_code == 200 and field in response.content.decode()
        response = client.post(url, {"rater": [value, *ids], "expected": value}, follow=True)
        assert response.status_code == 200 and "expected" in response.content.decode()
    for rater in (["-1"] * 3, ["9" * 30] * 3, [str(2**63)] * 3, [str(10**9 + i) for i in range(900)]):
        response = client.post(url, {"rater": rater, "expected": expected}, follow=True)
        assert response.status_code == 200 and "a jury needs 3 machine raters or more" in response.content.decode()
    # More fields than any form has: refused by Django's own limit.
    assert client.post(url, {"rater": [str(i) for i in range(2000)], "expected": expected}).status_code == 400
    # A NUL is refused at the door, naming the field.
    response = client.post(url, {"rater": ids, "alpha": "0.5\x00", "expected": expected})
    assert response.status_code == 400 and "alpha" in response.content.decode()
    assert not Seat.objects.exists()
    _queues_whole(study)
