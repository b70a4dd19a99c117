"""A decision kept honest: recorded only where the test passes, with its figures frozen; watched on seeded
sentinels; flagged on the study page when the machine's agreement there falls."""
from __future__ import annotations

import random

import pytest
from django.db.models import F
from django.urls import reverse

from annotation.models import Study
from machines.models import MachineRater, Measurement, ReplacementDecision
from machines.services import decisions, sentinels
from taxonomy.models import Codebook
from tests.factories import finished_run, label_with, make_issue, make_study, make_user

pytestmark = pytest.mark.django_db
THEMES = ["A.1", "B.1", "C.1", "C.2"]


@pytest.fixture
def panel_study():
    lead = make_user("lead")
    people = [make_user(f"h{n}") for n in range(3)]
    issues = [make_issue() for _ in range(60)]
    study = make_study(lead, people, issues=issues, name="Panel")
    pick = random.Random(4)
    truth = {}
    for issue in issues:
        truth[issue.pk] = pick.choice(THEMES)
        for person in people:
            label_with(person, study, issue, truth[issue.pk] if pick.random() < 0.85 else pick.choice(THEMES))
    return Study.objects.get(pk=study.pk), lead, truth


def test_a_decision_needs_a_passing_test_and_freezes_its_figures(panel_study, client_as):
    study, lead, truth = panel_study
    rater = MachineRater.objects.create(study=study, name="oracle", kind="builtin")
    good = finished_run(rater, truth)
    lead_client = client_as(lead)
    page = lead_client.get(reverse("machines:rater", args=[study.pk, rater.pk]))
    assert page.status_code == 200 and b"passes" in page.content
    form = {"level": "type", "type_code": "", "epsilon": "0.15", "sentinel_share": "1", "reason": "As good as us",
            "expected_run": good.pk}
    url = reverse("machines:decide", args=[study.pk, rater.pk])
    assert lead_client.post(url, form).status_code == 302
    assert lead_client.post(url, form).status_code == 302  # a double click
    decision = ReplacementDecision.objects.get()
    assert decision.figures["alt_test"]["passed"] and decision.figures["run"] == good.pk
    assert decision.decided_by == lead and decision.sentinel_seed == study.seed
    assert not decisions.watch(decision).below
    assert lead_client.get(reverse("machines:flags", args=[study.pk])).content == b""

    # The machine is re-run and now disagrees: the sentinels show it, the study page says so.
    pick = random.Random(5)
    finished_run(rater, {i: pick.choice(THEMES) for i in truth})
    watch = decisions.watch(decision)
    assert watch.below and watch.sentinels == 60
    flag = lead_client.get(reverse("machines:flags", args=[study.pk])).content.decode()
    assert "no longer holds on its sentinels" in flag
    # The pages read the watch a worker measured and kept, with the same figures.
    kept = decisions.watch_kept(decision)
    assert (kept.below, kept.sentinels, kept.figures) == (watch.below, watch.sentinels, watch.figures)
    watches = Measurement.objects.filter(decision=decision)
    assert watches.count() == 2  # the first run's watch (the flag before), and the new run's
    assert "no longer holds" in lead_client.get(reverse("machines:index", args=[study.pk])).content.decode()
    assert watches.count() == 2  # measured once per run and state of the panel
    assert reverse("machines:flags", args=[study.pk]) in lead_client.get(
        reverse("annotation:study_detail", args=[study.pk])).content.decode()
    # The frozen figures did not move.
    decision.refresh_from_db()
    assert decision.figures["run"] == good.pk


def test_no_decision_where_the_test_fails_or_the_figures_changed(panel_study):
    study, lead, truth = panel_study
    rater = MachineRater.objects.create(study=study, name="noise", kind="builtin")
    pick = random.Random(6)
    run = finished_run(rater, {i: pick.choice(THEMES) for i in truth})
    with pytest.raises(decisions.DecisionError, match="does not pass"):
        decisions.record(rater, level="type", type_code="", epsilon=0.2, reason="r", by=lead, expected_run=run.pk)
    with pytest.raises(decisions.DecisionError, match="changed since"):
        decisions.record(rater, level="type", type_code="", epsilon=0.2, reason="r", by=lead, expected_run=run.pk - 1)
    with pytest.raises(decisions.DecisionError, match="epsilon"):
        decisions.record(rater, level="type", type_code="", epsilon=0.3, reason="r", by=lead, expected_run=run.pk)
    with pytest.raises(decisions.DecisionError, match="type_code"):
        decisions.record(rater, level="theme", type_code="", epsilon=0.2, reason="r", by=lead, expected_run=run.pk)
    assert not ReplacementDecision.objects.exists()


def test_sentinels_are_a_seeded_share_and_a_withdrawal_happens_once(panel_study):
    study, lead, truth = panel_study
    rater = MachineRater.objects.create(study=study, name="oracle", kind="builtin")
    run = finished_run(rater, truth)
    decision = decisions.record(rater, level="type", type_code="", epsilon=0.15, reason="ok", by=lead,
                                expected_run=run.pk, sentinel_share=0.1)
    chosen = sentinels.sentinel_reports(decision, {})
    assert len(chosen) == 6 and chosen == sentinels.sentinel_reports(decision, {})
    decisions.withdraw(decision, by=lead, reason="re-check")
    with pytest.raises(decisions.DecisionError, match="withdrawn already"):
        decisions.withdraw(decision, by=lead, reason="again")
    # Withdrawn, a new decision may stand.
    decisions.record(rater, level="type", type_code="", epsilon=0.15, reason="again", by=lead, expected_run=run.pk)
    assert ReplacementDecision.objects.filter(withdrawn_at__isnull=True).count() == 1


def test_figures_are_measured_once_per_state_of_the_panel_and_again_when_a_label_changes(panel_study, client_as):
    study, lead, truth = panel_study
    rater = MachineRater.objects.create(study=study, name="oracle", kind="builtin")
    finished_run(rater, truth)
    lead_client = client_as(lead)
    url = reverse("machines:rater", args=[study.pk, rater.pk])
    first = lead_client.get(url, {"level": "theme", "type": "C"}).content.decode()
    lead_client.get(url, {"level": "theme", "type": "C"})
    assert Measurement.objects.count() == 1  # a second visit reads what was measured
    lead_client.get(url, {"level": "type", "epsilon": "0.1"})
    assert Measurement.objects.count() == 2  # another level and ε is another measurement
    # A person changes a label: the figures are measured again, against the panel as it is now.
    person, issue = study.memberships.exclude(user=lead).first().user, study.issues.order_by("pk").first()
    other = next(code for code in THEMES if code != truth[issue.pk])
    label_with(person, study, issue, other)
    again = lead_client.get(url, {"level": "theme", "type": "C"}).content.decode()
    assert Measurement.objects.count() == 3
    assert 'data-testid="computing"' not in first + again and 'data-testid="measurement"' in again
    # A codebook change (a new revision) is another state of the panel too.
    Codebook.objects.filter(pk=study.codebook_id).update(revision=F("revision") + 1)
    lead_client.get(url, {"level": "theme", "type": "C"})
    assert Measurement.objects.count() == 4
