"""Delegating to a jury: the reports three agreeing, confident machines take leave every person's queue, the
jury's votes stand in their seats (marked as machines'), and ending the delegation gives the seats back."""
from __future__ import annotations

import random

import pytest
from django.urls import reverse

from annotation.models import Assignment, Queue, Seat
from annotation.selectors.votes import current_votes
from annotation.services.seats import SeatError
from corpus.dataset_card import dataset_card
from corpus.exports import study_document
from machines.models import MachineRater, Measurement
from machines.services import delegation
from tests.factories import finished_run, label_with, make_issue, make_study, make_user

pytestmark = pytest.mark.django_db
THEMES = ["A.1", "B.1", "C.1", "C.2"]


@pytest.fixture
def jury_study():
    """Two people label all 40 reports, a third none yet; three machines give every report its true label, sure
    of it on all but every fourth report."""
    lead = make_user("lead")
    people = [make_user(f"h{n}") for n in range(3)]
    issues = [make_issue() for _ in range(40)]
    study = make_study(lead, people, issues=issues, name="Jury")
    pick = random.Random(7)
    truth = {issue.pk: pick.choice(THEMES) for issue in issues}
    for issue in issues:
        for person in people[:2]:
            label_with(person, study, issue, truth[issue.pk])
    raters = []
    for n in range(3):
        rater = MachineRater.objects.create(study=study, name=f"m{n}", kind="builtin")
        finished_run(rater, truth, {i: 0.5 if k % 4 == 0 else 0.9 for k, i in enumerate(sorted(truth))})
        raters.append(rater)
    return study, lead, people, raters, truth


def _waiting(study, person) -> set[int]:
    return set(Assignment.objects.filter(queue__round__study=study, queue__annotator=person, done=False)
               .values_list("issue_id", flat=True))


def test_the_plan_names_each_persons_count_and_applying_takes_those_reports_from_every_queue(jury_study):
    study, lead, people, raters, truth = jury_study
    made = delegation.plan(study, raters)
    assert made.fit and made.alpha == pytest.approx(1.0) and len(made.votes) == 30  # every fourth is unsure
    assert dict((name, n) for _, name, n in made.per_person) == {"h0": 0, "h1": 0, "h2": 30, "lead": 30}
    with pytest.raises(SeatError, match="60 reports in all would leave people's queues now, not 59"):
        delegation.apply(study, raters, expected=59, by=lead)
    assert not Seat.objects.exists()
    seats = delegation.apply(study, raters, expected=60, by=lead)
    assert {s.annotator.username for s in seats} == {"h2", "lead"} and seats[0].machine == "jury: m0, m1, m2"
    assert _waiting(study, people[2]) == set(truth) - set(made.votes)
    one = next(iter(made.votes))
    votes = current_votes(study)[one]
    assert sorted(v for v in votes if v < 0) == sorted(-s.pk for s in seats) and len(votes) == 4
    assert all(vote[0] == votes[people[0].pk][0] for vote in votes.values())  # the jury's type is the truth here
    queue = Queue.objects.get(round__study=study, annotator=people[2])
    assert queue.total == 10
    card = dataset_card(study, study_document(study))
    assert "except where a decision or a delegation below put a machine in a person's seat" in card
    assert "- Delegated: a jury: m0, m1, m2 stands in h2's seat on 30 reports in round 1" in card
    # A second plan offers nothing more: the seats stand.
    assert [n for _, _, n in delegation.plan(study, raters).per_person] == [0, 0]
    assert delegation.end(study, lead) == 60
    assert _waiting(study, people[2]) == set(truth) and not delegation.standing_jury_seats(study).exists()


def test_a_jury_that_does_not_agree_with_itself_or_is_too_small_delegates_nothing(jury_study):
    study, lead, people, raters, truth = jury_study
    pick = random.Random(9)
    finished_run(raters[2], {i: pick.choice("ABC") for i in truth}, 0.9)
    made = delegation.plan(study, raters, alpha_min=0.9)
    assert not made.fit and not made.votes
    with pytest.raises(SeatError, match="agree with each other too little"):
        delegation.apply(study, raters, alpha_min=0.9, expected=0, by=lead)
    with pytest.raises(SeatError, match="needs 3 machine raters or more"):
        delegation.plan(study, raters[:2])
    with pytest.raises(SeatError, match="numbers from 0 to 1"):
        delegation.plan(study, raters, alpha_min="lots")


def test_the_machines_page_plans_and_applies_a_delegation_once(jury_study, client_as):
    study, lead, people, raters, _ = jury_study
    client = client_as(lead)
    ids = [r.pk for r in raters]
    page = client.get(reverse("machines:jury", args=[study.pk]), {"rater": ids}).content.decode()
    assert "alpha 1.000: fit" in page
    assert "Delegate 30 reports to the jury: 60 leave people's queues" in page
    url = reverse("machines:delegate", args=[study.pk])
    form = {"rater": ids, "alpha": "0.5", "confidence": "0.8", "expected": "60"}
    assert "2 people" in client.post(url, form, follow=True).content.decode()
    again = client.post(url, form, follow=True).content.decode()  # a double click
    assert "0 reports in all would leave" in again and Seat.objects.count() == 2
    assert "jury: m0, m1, m2 stands in" in client.get(reverse("machines:jury", args=[study.pk])).content.decode()
    ended = client.post(reverse("machines:end_delegation", args=[study.pk]), follow=True).content.decode()
    assert "60 reports returned to people&#x27;s queues" in ended


def test_the_page_says_when_alpha_is_near_the_gates_line(jury_study, client_as):
    study, lead, _, raters, _ = jury_study
    client = client_as(lead)
    url = reverse("machines:jury", args=[study.pk])
    alpha = delegation.plan(study, raters).alpha
    assert alpha > 0.9
    far = client.get(url, {"rater": [r.pk for r in raters]}).content.decode()
    near = client.get(url, {"rater": [r.pk for r in raters], "alpha": f"{alpha - 0.05:.2f}"}).content.decode()
    assert "That is near the line" not in far and "That is near the line" in near


def test_the_page_measures_the_jury_against_the_people_before_it_is_offered(jury_study, client_as):
    """The figures `manage.py jury` gives on a hidden study, on the page against the people's labels so far: the
    two people labeled every report alike, the jury takes the 30 reports it is sure of and is right on all."""
    from machines.jury import measure_jury
    from machines.services import stored_jury

    study, lead, _, raters, _ = jury_study
    page = client_as(lead).get(reverse("machines:jury", args=[study.pk]), {"rater": [r.pk for r in raters]})
    text = page.content.decode()
    assert "Against people's labels here so far (40 reports): the jury would take 30 (75.00 %)" in text
    assert "on 100.00 % [" in text and "of the 30 of them people do not tie on" in text
    kept = stored_jury.requested(study, raters, 0.5, 0.8)
    expected = measure_jury(study, raters, resamples=stored_jury.RESAMPLES)
    expected.pop("delegated_reports")
    assert kept == expected
    # A label changes the panel: the figures are measured again, not read stale.
    before = Measurement.objects.filter(level="jury").count()
    label_with(study.memberships.get(user__username="h2").user, study, study.issues.first(), "B.1")
    stored_jury.requested(study, raters, 0.5, 0.8)
    assert Measurement.objects.filter(level="jury").count() == before + 1


def test_a_jury_surer_than_people_show_it_right_is_refused_and_the_page_says_why(jury_study, client_as):
    """Three machines sure (0.95) of every report, on which they agree, and right by people's labels on only 30 of
    40: the threshold of 0.8 promises 80 %, the interval's lower end is below it, so nothing is delegated, by
    the page or by a forged form."""
    study, lead, people, _, truth = jury_study
    order = sorted(truth)
    wrong = {i: ("A.1" if truth[i] != "A.1" else "B.1") if k % 4 == 1 else truth[i] for k, i in enumerate(order)}
    sure = []
    for n in range(3):
        rater = MachineRater.objects.create(study=study, name=f"sure{n}", kind="builtin")
        finished_run(rater, wrong, {i: 0.95 for i in order})
        sure.append(rater)
    made = delegation.plan(study, sure)
    assert made.fit and len(made.votes) == 40 and not made.promise_kept
    assert (made.checked.successes, made.checked.n) == (30, 40) and made.checked.low < 0.8
    with pytest.raises(SeatError, match="do not show the jury right 80 % of the time"):
        delegation.apply(study, sure, expected=made.total, by=lead)
    assert not Seat.objects.exists() and _waiting(study, people[2]) == set(truth)
    page = client_as(lead).get(reverse("machines:jury", args=[study.pk]), {"rater": [r.pk for r in sure]})
    text = page.content.decode()
    assert "on 30 of the 40 reports it would take that people labeled" in text
    assert "so nothing is delegated: members surer than they are right" in text
    assert "Delegate 40 reports" not in text
    # The calibrated jury of the fixture is shown right on all 30 it would take, and offered.
    offered = client_as(lead).get(reverse("machines:jury", args=[study.pk]),
                                  {"rater": [r.pk for r in MachineRater.objects.filter(name__startswith="m")]})
    assert "as the threshold promises." in offered.content.decode() and "Delegate 30 reports" in \
        offered.content.decode()
