"""A decision that acts: the machine takes one annotator's seat on the reports it may label, its vote counts
there (marked as a machine's), and withdrawing the decision gives the seat back with nothing lost."""
from __future__ import annotations

import io
import json
import random
import subprocess
import sys
import zipfile
from functools import partial

import pytest
from django.core.management import call_command
from django.db import connection
from django.urls import reverse

from accounts import notices
from accounts.models import Notice
from agreement.services import is_current, snapshot
from annotation.models import Assignment, FinalLabel, Label, Queue, Seat, SeatLabel, Study
from annotation.selectors.phases import missing_labels
from annotation.selectors.votes import current_votes, needing_decision, still_tied
from annotation.services.adjudication import decide
from annotation.services.labels import LabelError, LabelInput
from annotation.services.phases import advance
from annotation.services.seats import SeatError
from findings.estimates import people_labels
from machines.models import MachineRater, ReplacementDecision
from machines.services import decisions
from machines.services.measurements import measure
from machines.services.seats import ApplyError, offers, seat_votes
from machines.services.sentinels import sentinel_reports
from tests.concurrency import at_once
from tests.factories import category, finished_run, label_with, make_issue, make_study, make_user

THEMES = ["A.1", "B.1", "C.1", "C.2"]


def _study(labeled_by_last: int = 20, sentinel_share: float = 0.1, lead=None, name: str = "Seats"):
    """Three people; the first two label all 60 reports, the third the first `labeled_by_last` of their queue. A
    machine that agrees with the truth, and its decision at type level with a tenth of the reports as sentinels.
    `lead`: a user who runs it (a new one by default)."""
    lead = lead or make_user("lead")
    people = [make_user(f"h{n}") for n in range(3)]
    issues = [make_issue() for _ in range(60)]
    study = make_study(lead, people, issues=issues, name=name)
    pick = random.Random(4)
    truth = {issue.pk: pick.choice(THEMES) for issue in issues}
    queue = Queue.objects.get(round__study=study, annotator=people[2])
    third = list(queue.assignments.order_by("position").values_list("issue_id", flat=True))[:labeled_by_last]
    for issue in issues:
        for person in people:
            if person != people[2] or issue.pk in third:
                label_with(person, study, issue, truth[issue.pk] if pick.random() < 0.85 else pick.choice(THEMES))
    rater = MachineRater.objects.create(study=study, name="oracle", kind="builtin")
    run = finished_run(rater, truth)
    measure(run, "type", "", 0.2)  # here, not in a worker: a test with a real one decides at once all the same
    decision = decisions.record(rater, level="type", type_code="", epsilon=0.2, reason="as good as us", by=lead,
                                expected_run=run.pk, sentinel_share=sentinel_share)
    return Study.objects.get(pk=study.pk), lead, people, decision, truth


def _waiting(study, person) -> set[int]:
    return set(Assignment.objects.filter(queue__round__study=study, queue__annotator=person, done=False)
               .values_list("issue_id", flat=True))


@pytest.mark.django_db
def test_applying_takes_the_seat_on_the_unlabeled_non_sentinel_reports_and_withdrawing_gives_it_back():
    study, lead, people, decision, truth = _study()
    third = people[2]
    kept = sentinel_reports(decision, {})
    waiting = _waiting(study, third)
    offered = {o.username: o.reports for o in offers(decision)}
    # The lead labels too, and has labeled nothing yet: every report but the sentinels could leave their queue.
    assert offered == {"h0": 0, "h1": 0, "h2": len(waiting - kept), "lead": 60 - len(kept)}
    assert 0 < offered["h2"] < 40

    # The confirmation named another number (they labeled meanwhile): nothing changes, and the new number is said.
    with pytest.raises(SeatError, match=f"{offered['h2']} of h2's reports would leave their queue now, not 3"):
        decisions.apply(decision, annotator_id=third.pk, expected=3, by=lead)
    assert not Seat.objects.exists() and _waiting(study, third) == waiting

    seat = decisions.apply(decision, annotator_id=third.pk, expected=offered["h2"], by=lead)
    taken = set(seat.labels.values_list("issue_id", flat=True))
    assert taken == waiting - kept and _waiting(study, third) == waiting & kept  # sentinels keep the full panel
    queue = Queue.objects.get(round__study=study, annotator=third)
    assert queue.total == 60 - len(taken) and queue.done == 20
    assert [m.count for m in missing_labels(study.current_round) if m.username == "h2"] == [len(waiting & kept)]
    # The machine's vote names the type alone (the decision's level), marked as a machine's by its negative key.
    votes = current_votes(study)
    one = next(iter(taken))
    assert votes[one][-seat.pk][1:] == (None, None) and len(votes[one]) == 3
    assert -seat.pk not in current_votes(study, machines=False)[one]
    # A withdrawn report cannot be labeled by the person now; a double apply changes nothing.
    with pytest.raises(LabelError, match="not in your queue"):
        label_with(third, study, study.issues.get(pk=one), "A.1")
    with pytest.raises(decisions.DecisionError, match="holds h2's seat already"):
        decisions.apply(decision, annotator_id=third.pk, expected=0, by=lead)

    decisions.withdraw(decision, by=lead, reason="the sentinels fell")
    seat.refresh_from_db()
    assert not seat.standing and seat.returned == len(taken)
    assert _waiting(study, third) == waiting
    assert -seat.pk not in current_votes(study)[one] and SeatLabel.objects.filter(seat=seat).count() == len(taken)
    queue.refresh_from_db()
    assert (queue.total, queue.done) == (60, 20)
    assert Label.objects.filter(annotator=third).count() == 20  # nothing labeled was lost


@pytest.mark.django_db
def test_the_machines_vote_settles_ties_and_final_labels_and_is_counted_as_a_machines(client_as):
    study, lead, people, decision, truth = _study()
    offered = {o.username: o.reports for o in offers(decision)}["h2"]
    seat = decisions.apply(decision, annotator_id=people[2].pk, expected=offered, by=lead)
    taken = set(seat.labels.values_list("issue_id", flat=True))
    # h2 labels the sentinels left in their queue; only the lead's labels are missing when the round closes.
    for issue_id in _waiting(study, people[2]):
        label_with(people[2], study, study.issues.get(pk=issue_id), truth[issue_id])
    assert {m.username for m in missing_labels(study.current_round)} == {"lead"}
    tied_before = set(still_tied(study, current_votes(study, machines=False)))
    study = advance(study, lead, confirm_missing=True)  # review
    study = advance(study, lead)  # adjudication
    one = next(iter(taken))
    page = client_as(lead).get(reverse("annotation:adjudicate", args=[study.pk, one])).content.decode()
    assert "oracle, a machine, in h2's seat" in page
    assert "a machine, in" not in client_as(people[0]).get(
        reverse("annotation:adjudicate", args=[study.pk, one])).content.decode()
    for issue_id in needing_decision(study):
        theme = category(truth[issue_id], study.codebook)
        decide(study, lead, issue_id, LabelInput(type_id=theme.parent_id, theme_id=theme.pk), "tied")
    study = advance(study, lead)  # closed: final labels from the votes
    finals = {f.issue_id: f for f in FinalLabel.objects.filter(study=study)}
    assert len(finals) == 60
    assert {finals[i].machine_votes for i in taken} == {1} and all(finals[i].raters == 3 for i in taken)
    assert {f.machine_votes for i, f in finals.items() if i not in taken} == {0}
    # Where two people disagreed, the machine's vote broke the tie that people alone would have left.
    broken = {i for i in tied_before if i in taken and finals[i].method == "majority"}
    assert broken
    page = client_as(lead).get(reverse("findings:statistics", args=[study.pk])).content.decode()
    assert f"({len(taken)} final labels counted one)" in page
    # What the estimates take for people's labels is theirs alone: such a report has none.
    people = people_labels(study)
    assert not broken & set(people) and len(people) == 60 - len(broken)


@pytest.mark.django_db
def test_a_decision_below_type_level_or_outside_the_independent_round_is_not_applied():
    study, lead, people, decision, _ = _study()
    theme = ReplacementDecision.objects.create(rater=decision.rater, level="theme", type_code="C", epsilon=0.2,
                                               figures={}, reason="r", decided_by=lead)
    with pytest.raises(ApplyError, match="only a decision at type level"):
        seat_votes(theme)
    assert offers(theme) == []
    with pytest.raises(SeatError, match="no queue in this round"):
        decisions.apply(decision, annotator_id=make_user("outsider").pk, expected=0, by=lead)


@pytest.mark.skipif(connection.vendor != "postgresql", reason="row locks need PostgreSQL (SQLite locks the file)")
@pytest.mark.django_db(transaction=True)
def test_labeling_while_the_seat_is_taken_keeps_every_label_and_every_report_in_one_place():
    study, lead, people, decision, truth = _study()
    third = people[2]
    offered = {o.username: o.reports for o in offers(decision)}["h2"]
    candidates = sorted(_waiting(study, third) - sentinel_reports(decision, {}))
    racing = candidates[:4]

    def label(issue_id):
        return lambda: label_with(third, study, study.issues.get(pk=issue_id), truth[issue_id])

    # The apply expects the number the page showed; labels saved at the same moment either land first (and the
    # apply, seeing another number, refuses) or are refused because their report left the queue.
    outcomes = at_once(lambda: decisions.apply(decision, annotator_id=third.pk, expected=offered, by=lead),
                       *(label(i) for i in racing))
    labeled = set(Label.objects.filter(annotator=third, issue_id__in=racing).values_list("issue_id", flat=True))
    seat = Seat.objects.filter(round__study=study).first()
    taken = set(seat.labels.values_list("issue_id", flat=True)) if seat else set()
    assert not labeled & taken  # no report both labeled by the person and in the machine's seat
    for i, outcome in zip(racing, outcomes[1:], strict=True):
        assert (outcome is None) == (i in labeled)
        assert outcome is None or isinstance(outcome, LabelError)
    if seat is None:
        assert isinstance(outcomes[0], SeatError) and labeled
    else:
        assert outcomes[0] is None and taken == set(candidates) - labeled
    queue = Queue.objects.get(round__study=study, annotator=third)
    assert queue.total == Assignment.objects.filter(queue=queue).count()
    assert queue.done == Assignment.objects.filter(queue=queue, done=True).count() == 20 + len(labeled)


@pytest.mark.skipif(connection.vendor != "postgresql", reason="row locks need PostgreSQL (SQLite locks the file)")
@pytest.mark.django_db(transaction=True)
def test_apply_and_withdraw_at_once_leave_the_seat_with_the_person_or_the_decision_standing_in_it():
    study, lead, people, decision, _ = _study()
    third, run = people[2], decision.rater.runs.get()
    before = _waiting(study, third)
    for attempt in range(3):
        if attempt:
            decision = decisions.record(run.rater, level="type", type_code="", epsilon=0.2, reason="again", by=lead,
                                        expected_run=run.pk, sentinel_share=0.1)
        offered = {o.username: o.reports for o in offers(decision)}["h2"]
        outcomes = at_once(partial(decisions.apply, decision, annotator_id=third.pk, expected=offered, by=lead),
                           partial(decisions.withdraw, decision, by=lead, reason="no"))
        decision.refresh_from_db()
        assert decision.withdrawn_at is not None and outcomes[1] is None
        assert outcomes[0] is None or isinstance(outcomes[0], decisions.DecisionError)
        assert not Seat.objects.filter(round__study=study, given_back_at__isnull=True).exists()
        assert _waiting(study, third) == before  # applied then given back, or never applied: the queue is whole


@pytest.mark.django_db(transaction=True)
def test_a_backup_restores_the_seat_its_votes_and_the_decision_standing_in_it(tmp_path):
    study, lead, people, decision, _ = _study()
    offered = {o.username: o.reports for o in offers(decision)}["h2"]
    decisions.apply(decision, annotator_id=people[2].pk, expected=offered, by=lead)
    votes = current_votes(study)
    path = tmp_path / "study.gz"
    call_command("export_study", study.name, str(path))
    call_command("flush", "--no-input")
    call_command("import_study", str(path))
    restored = Study.objects.get(name=study.name)
    seat = Seat.objects.get(study=restored)
    assert (seat.machine, seat.level, seat.annotator.username, seat.labels.count()) == ("oracle", "type", "h2", offered)
    assert ReplacementDecision.objects.get(rater__study=restored).seat == seat
    # The same votes, the machine's under its new seat's key.
    again = current_votes(restored)
    assert len(again) == len(votes) == 60
    assert sorted(map(len, votes.values())) == sorted(map(len, again.values()))
    assert sum(1 for by in again.values() for voter in by if voter == -seat.pk) == offered


@pytest.mark.django_db
def test_the_raters_page_offers_each_seat_with_its_count_and_applies_once(client_as):
    study, lead, people, decision, _ = _study()
    rater = decision.rater
    client = client_as(lead)
    page = client.get(reverse("machines:rater", args=[study.pk, rater.pk])).content.decode()
    offered = {o.username: o.reports for o in offers(decision)}["h2"]
    assert f"Hand h2's seat to oracle: {offered} reports leave their queue" in page
    assert "Hand h0's seat" not in page  # h0 labeled everything: nothing left to take
    url = reverse("machines:apply", args=[study.pk, decision.pk])
    form = {"annotator": people[2].pk, "expected_withdrawn": offered}
    stale = client.post(url, form | {"expected_withdrawn": offered + 1}, follow=True).content.decode()
    assert f"{offered} of h2&#x27;s reports would leave their queue now, not {offered + 1}" in stale
    assert client.post(url, form | {"annotator": "x"}, follow=True).status_code == 200 and not Seat.objects.exists()
    done = client.post(url, form, follow=True).content.decode()
    assert f"oracle stands in h2&#x27;s seat: {offered} reports left their queue" in done
    twice = client.post(url, form, follow=True).content.decode()  # a double click
    assert "holds h2&#x27;s seat already" in twice and Seat.objects.count() == 1
    assert f"stands in <strong>h2</strong>'s seat in round 1 on {offered} reports" in twice
    gone = client.post(reverse("machines:withdraw", args=[study.pk, decision.pk]), {"reason": "enough"},
                       follow=True).content.decode()
    assert f"Decision withdrawn. {offered} reports returned to h2&#x27;s queue." in gone


@pytest.mark.django_db
def test_agreement_is_given_both_ways_while_a_machine_holds_a_seat(client_as):
    study, lead, people, decision, _ = _study()
    round = study.current_round
    before = snapshot(round, "theme")
    assert "with_machines" not in before.figures
    offered = {o.username: o.reports for o in offers(decision)}["h2"]
    decisions.apply(decision, annotator_id=people[2].pk, expected=offered, by=lead)
    assert not is_current(before, round)  # a seat changing hands changes the figures with machines
    figures = snapshot(round, "theme").figures
    people_only, with_machines = figures["type"], figures["with_machines"]["type"]
    # People's figures did not move (the seat adds no label of theirs); with the machine in h2's place every
    # report is complete at type level.
    assert people_only == before.figures["type"]
    assert with_machines["reports"] == people_only["reports"] + offered
    assert figures["seats"] == [{"machine": "oracle", "in_seat_of": "h2", "level": "type", "reports": offered}]
    assert "h2, or oracle in their seat" in {r["rater"] for r in figures["with_machines"]["raters"]}
    assert "h2" in {r["rater"] for r in figures["raters"]}
    page = client_as(lead).get(reverse("agreement:study_agreement", args=[study.pk])).content.decode()
    assert "With the machines in people's seats" in page and f"on {offered} reports, its type counting" in page


@pytest.mark.django_db
def test_every_export_reports_the_seat_both_ways_and_the_package_recomputes_both(tmp_path):
    study, lead, people, decision, _ = _study()
    offered = {o.username: o.reports for o in offers(decision)}["h2"]
    decisions.apply(decision, annotator_id=people[2].pk, expected=offered, by=lead)
    path = tmp_path / "package.zip"
    call_command("replication_package", study.name, str(path), stdout=io.StringIO())
    with zipfile.ZipFile(path) as archive:
        archive.extractall(tmp_path / "package")
    folder = tmp_path / "package"
    report = json.loads((folder / "reliability" / "report.json").read_text())
    assert set(report["with_machines"]) == {"theme", "sub_theme"}
    assert report["with_machines"]["theme"]["type"]["reports"] == report["levels"]["theme"]["type"]["reports"] + offered
    document = json.loads((folder / "study.json").read_text())
    assert document["machines"]["decisions"][0]["seat"]["in_seat_of"] == "h2"
    card = (folder / "dataset-card.md").read_text()
    assert "These are people's labels alone." in card and "with their votes filling those places" in card
    assert f"oracle stands in h2's seat on {offered} reports, its type counting there" in card
    seated = [line for line in (folder / "reliability" / "labels-with-machines.csv").read_text().splitlines()
              if "h2, or oracle in their seat" in line]
    assert len(seated) == 20 + offered  # h2's own labels and the machine's votes, in one place
    result = subprocess.run([sys.executable, "-I", "recompute.py"], cwd=folder, capture_output=True, text=True,
                            timeout=120)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "matches  theme, with machines: type, Fleiss' kappa" in result.stdout and "DIFFERS" not in result.stdout
    # The machine's votes changed one number: recompute.py notices.
    table = folder / "reliability" / "labels-with-machines.csv"
    lines = table.read_text().splitlines(keepends=True)
    at = next(i for i, line in enumerate(lines) if 'in their seat",' in line and line.endswith(",,\n"))
    head, type_, _, _ = lines[at].rsplit(",", 3)
    lines[at] = f"{head},{'A' if type_ != 'A' else 'B'},,\n"
    table.write_text("".join(lines))
    again = subprocess.run([sys.executable, "-I", "recompute.py"], cwd=folder, capture_output=True, text=True,
                           timeout=120)
    assert again.returncode == 1 and "DIFFERS  theme, with machines: type, Fleiss' kappa" in again.stdout


@pytest.mark.django_db
def test_the_sentinel_watch_firing_gives_the_seat_back_and_the_decision_may_be_applied_again(client_as):
    study, lead, people, decision, truth = _study(sentinel_share=0.5)
    third = people[2]
    waiting = _waiting(study, third)
    offered = {o.username: o.reports for o in offers(decision)}["h2"]
    seat = decisions.apply(decision, annotator_id=third.pk, expected=offered, by=lead)
    assert decisions.watch_kept(decision).below is False and Seat.objects.get().standing
    # The machine is re-run and now labels at random: on the sentinels its agreement falls, and the seat goes back.
    rater, pick = decision.rater, random.Random(5)
    finished_run(rater, {i: pick.choice("ABC") for i in truth})
    assert decisions.watch_kept(decision).below is True
    # The leads hear of it once, however often it is measured again.
    finished_run(rater, {i: pick.choice("ABC") for i in truth})
    assert decisions.watch_kept(decision).below is True
    told = Notice.objects.get(kind="flagged")
    assert told.user == lead and notices.text(told) == (
        "oracle agrees less with people on the sentinel reports of Seats than when it was given a seat at the type "
        "level.")
    seat.refresh_from_db()
    assert not seat.standing and seat.given_back_by is None and seat.returned == offered
    assert _waiting(study, third) == waiting
    page = client_as(lead).get(reverse("machines:rater", args=[study.pk, rater.pk])).content.decode()
    assert "when the sentinel watch fired" in page
    assert "Hand h2's seat to oracle" in page  # the decision stands: the lead may apply it again
