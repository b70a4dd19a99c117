"""A standing decision carried to a new study: the same machine may take a seat there on the evidence it was
decided on, the new study's sentinels watch it against the old study's, and the carry is refused where the
evidence does not reach."""
from __future__ import annotations

import random
from functools import partial

import pytest
from django.db import connection
from django.urls import reverse

from annotation.models import Membership, Study
from concord.audit import AuditEntry
from corpus.dataset_card import dataset_card
from corpus.exports import study_document
from machines.models import MachineRater, ReplacementDecision
from machines.services import carried_decisions, decisions
from machines.services.seats import offers
from taxonomy.models import Category, Codebook
from tests.concurrency import at_once
from tests.factories import finished_run, label_with, make_issue, make_study, make_user
from tests.machines.test_seats import _study

pytestmark = pytest.mark.django_db


def _new_study(lead, name: str = "Follow-up", n: int = 40):
    """The lead's next study: three new people, `n` new reports, the same codebook."""
    people = [make_user(f"{name[:3].lower()}{k}") for k in range(3)]
    return make_study(lead, people, issues=[make_issue() for _ in range(n)], name=name), people


def test_a_carried_decision_stands_in_the_new_study_and_is_applied_there():
    study, lead, _, decision, _ = _study()
    follow_up, people = _new_study(lead)
    assert carried_decisions.targets(decision, lead) == [follow_up]
    carried = carried_decisions.carry(decision, to=follow_up, by=lead, reason="same frameworks, same year")
    rater = carried.rater
    source = decision.rater
    assert rater.study_id == follow_up.pk and (rater.name, rater.kind, rater.settings) == (
        source.name, source.kind, source.settings)
    assert (carried.level, carried.epsilon, carried.sentinel_share, carried.sentinel_seed) == (
        "type", decision.epsilon, decision.sentinel_share, follow_up.seed)
    origin = carried.figures.pop("carried_from")
    assert origin["study"] == study.pk and origin["decision"] == decision.pk and origin["carried_by"] == "lead"
    # The evidence is the old study's, frozen as it was there, its sentinels' kappa among it.
    assert carried.figures == decision.figures and "sentinels_at_decision" in carried.figures
    assert set(AuditEntry.objects.filter(action__startswith="machine").values_list("action", "study_id")) >= {
        ("machine decision carried", study.pk), ("machine decision recorded", follow_up.pk),
        ("machine rater added", follow_up.pk)}

    # Until the machine has rated the new study's reports there is nothing to take.
    assert all(o.reports == 0 for o in offers(carried))
    finished_run(rater, {i: "C.1" for i in follow_up.issues.values_list("pk", flat=True)})
    offered = {o.username: o.reports for o in offers(carried)}
    seat = decisions.apply(carried, annotator_id=people[0].pk, expected=offered[people[0].username], by=lead)
    assert seat.labels.count() == offered[people[0].username] > 0

    document = study_document(Study.objects.get(pk=follow_up.pk))
    exported = document["machines"]["decisions"][0]
    assert exported["carried_from"]["study_name"] == study.name and exported["seat"]["in_seat_of"] == people[0].username
    card = dataset_card(follow_up, document)
    assert f"Carried from the study {study.name}, where it was decided on" in card


def test_the_new_studys_sentinels_are_watched_against_the_old_ones_and_give_the_seat_back():
    study, lead, _, decision, _ = _study(sentinel_share=0.5)
    follow_up, people = _new_study(lead, n=60)
    carried = carried_decisions.carry(decision, to=follow_up, by=lead, reason="same frameworks")
    # People label the new study as they did the old one; the machine, carried over, labels it at random there.
    pick = random.Random(3)
    reports = list(follow_up.issues.values_list("pk", flat=True))
    truth = {i: pick.choice(["A.1", "B.1", "C.1", "C.2"]) for i in reports}
    first, second = people[:2]
    for issue in follow_up.issues.all():
        for person in (first, second):
            label_with(person, follow_up, issue, truth[issue.pk])
    finished_run(carried.rater, {i: pick.choice("ABC") for i in reports})
    offered = {o.username: o.reports for o in offers(carried)}[people[2].username]
    seat = decisions.apply(carried, annotator_id=people[2].pk, expected=offered, by=lead)
    watched = decisions.watch_kept(carried)
    assert watched.sentinels > 0 and watched.below is True
    seat.refresh_from_db()
    assert not seat.standing and seat.returned == offered


@pytest.mark.parametrize("case", ["withdrawn", "below_type", "not_their_study", "other_types", "closed", "same",
                                  "other_settings", "no_reason", "nul_reason", "long_reason"])
def test_a_carry_the_evidence_does_not_reach_is_refused_and_changes_nothing(case):
    study, lead, _, decision, _ = _study()
    follow_up, _ = _new_study(lead)
    reason = "same frameworks"
    match = {"withdrawn": "withdrawn", "below_type": "only a decision at type level",
             "not_their_study": "a study you run", "other_types": "same types", "closed": "not closed",
             "same": "stands in Seats already", "other_settings": "with other settings", "no_reason": "say why",
             "nul_reason": "reason", "long_reason": "at most 5,000"}[case]
    to = follow_up
    if case == "withdrawn":
        decisions.withdraw(decision, by=lead, reason="no longer")
    elif case == "below_type":
        ReplacementDecision.objects.filter(pk=decision.pk).update(level="theme", type_code="C")
    elif case == "not_their_study":
        Membership.objects.filter(study=follow_up, user=lead).update(role=Membership.Role.ANNOTATOR)
    elif case == "other_types":
        other = Codebook.objects.create(name="Other", version="1")
        for code in ("A", "B", "X"):
            Category.objects.create(codebook=other, level=Category.Level.TYPE, code=code, name=code)
        Study.objects.filter(pk=follow_up.pk).update(codebook=other)
    elif case == "closed":
        Study.objects.filter(pk=follow_up.pk).update(phase=Study.Phase.CLOSED)
    elif case == "same":
        to = study
    elif case == "other_settings":
        MachineRater.objects.create(study=follow_up, name="oracle", kind="builtin", settings={"folds": 3})
    elif case == "no_reason":
        reason = "  "
    elif case == "nul_reason":
        reason = "same\x00frameworks"
    elif case == "long_reason":
        reason = "x" * 5001
    decision.refresh_from_db()
    to = Study.objects.get(pk=to.pk)
    before = ReplacementDecision.objects.count(), MachineRater.objects.count()
    with pytest.raises(Exception, match=match):
        carried_decisions.carry(decision, to=to, by=lead, reason=reason)
    assert (ReplacementDecision.objects.count(), MachineRater.objects.count()) == before


def test_a_decision_the_watch_flags_is_not_carried():
    study, lead, _, decision, truth = _study(sentinel_share=0.5)
    follow_up, _ = _new_study(lead)
    pick = random.Random(5)
    finished_run(decision.rater, {i: pick.choice("ABC") for i in truth})
    assert decisions.watch_kept(decision).below is True
    with pytest.raises(decisions.DecisionError, match="a decision the watch flags is not carried"):
        carried_decisions.carry(decision, to=follow_up, by=lead, reason="same frameworks")
    assert not ReplacementDecision.objects.filter(rater__study=follow_up).exists()


def test_the_page_carries_once_and_refuses_hostile_targets(client_as):
    study, lead, _, decision, _ = _study()
    follow_up, _ = _new_study(lead)
    client = client_as(lead)
    page = client.get(reverse("machines:rater", args=[study.pk, decision.rater_id]))
    assert page.status_code == 200 and f'<option value="{follow_up.pk}">Follow-up</option>' in page.content.decode()
    url = reverse("machines:carry", args=[study.pk, decision.pk])
    for to in ("", "abc", "1" * 40, "-3", "4\x00", str(10**12)):
        response = client.post(url, {"to": to, "reason": "same frameworks"}, follow=True)
        # A NUL is refused at the door (concord.request_limits) with the field named; the rest by the view.
        assert response.status_code == (400 if "\x00" in to else 200)
        assert "to" in response.content.decode()
        assert not ReplacementDecision.objects.filter(rater__study=follow_up).exists()
    for _ in range(2):  # a double click
        response = client.post(url, {"to": follow_up.pk, "reason": "same frameworks"}, follow=True)
    text = response.content.decode()
    assert "stands in Follow-up already" in text
    assert ReplacementDecision.objects.filter(rater__study=follow_up, withdrawn_at__isnull=True).count() == 1
    # The new study's page says where the decision came from.
    carried = ReplacementDecision.objects.get(rater__study=follow_up)
    page = client.get(reverse("machines:rater", args=[follow_up.pk, carried.rater_id]))
    assert "Carried from the study Seats" in page.content.decode()
    assert 'data-testid="carry"' not in page.content.decode()  # the old study has the decision already
    assert "has not rated this study's reports yet" in page.content.decode()
    # An annotator of the old study cannot carry it, even to a study they run.
    annotator = make_user("other-lead")
    Membership.objects.create(study=study, user=annotator, role=Membership.Role.ANNOTATOR)
    theirs, _ = _new_study(annotator, name="Theirs")
    assert client_as(annotator).post(url, {"to": theirs.pk, "reason": "x"}).status_code in (403, 404)


def test_a_decision_carried_on_keeps_the_study_its_figures_come_from():
    study, lead, _, decision, _ = _study()
    second, _ = _new_study(lead, name="Second")
    third, _ = _new_study(lead, name="Third")
    once = carried_decisions.carry(decision, to=second, by=lead, reason="same frameworks")
    twice = carried_decisions.carry(once, to=third, by=lead, reason="same frameworks again")
    origin = twice.figures["carried_from"]
    assert (origin["study_name"], origin["decision"]) == (study.name, decision.pk)
    assert {k: v for k, v in twice.figures.items() if k != "carried_from"} == \
        {k: v for k, v in decision.figures.items() if k != "carried_from"}


@pytest.mark.skipif(connection.vendor != "postgresql", reason="row locks need PostgreSQL (SQLite locks the file)")
@pytest.mark.django_db(transaction=True)
def test_two_carries_at_once_make_one_rater_and_one_decision():
    from machines.services.measurements import measure

    study, lead, _, decision, _ = _study()
    follow_up, _ = _new_study(lead)
    # The watch measured first: else one carry asks a worker for it and the other is told it is being measured.
    measure(decision.rater.runs.get(), "type", "", decision.epsilon, decision.pk)
    outcomes = at_once(*[partial(carried_decisions.carry, decision, to=follow_up, by=lead,
                                       reason="same frameworks")] * 2)
    refused = [o for o in outcomes if o is not None]
    assert len(refused) == 1 and "stands in Follow-up already" in str(refused[0])
    assert MachineRater.objects.filter(study=follow_up).count() == 1
    assert ReplacementDecision.objects.filter(rater__study=follow_up).count() == 1
