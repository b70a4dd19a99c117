"""Does the summary anchor? Seeded arms per annotator and report, the arm recorded with each label, the summary
hidden on the page for the other arm, and the two arms compared."""
from __future__ import annotations

import random

import pytest
from django.urls import reverse

from annotation.models import Label, Study
from annotation.summary_arms import arm_of, shows_summary
from findings.summary_experiment import experiment
from tests.factories import label_with, make_issue, make_study, make_user

pytestmark = pytest.mark.django_db


def test_arms_are_seeded_and_split_about_half():
    study = Study(seed=11, summary_experiment=True)
    arms = [shows_summary(study, user, issue) for user in range(20) for issue in range(100)]
    assert 0.45 < sum(arms) / len(arms) < 0.55
    assert arms == [shows_summary(study, user, issue) for user in range(20) for issue in range(100)]
    assert shows_summary(Study(seed=11), 1, 1) and arm_of(Study(seed=11), 1, 1) is None


def test_the_page_hides_the_summary_in_the_other_arm_and_the_label_records_which(client_as):
    lead, alice = make_user("lead"), make_user("alice")
    issues = [make_issue() for _ in range(12)]
    study = make_study(lead, [alice], issues=issues)
    Study.objects.filter(pk=study.pk).update(summary_experiment=True)
    study = Study.objects.get(pk=study.pk)
    client = client_as(alice)
    for issue in issues:
        page = client.get(reverse("annotation:issue_label", args=[study.pk, issue.pk])).content.decode()
        shown = shows_summary(study, alice.pk, issue.pk)
        assert ('id="summary-heading"' in page) is shown
        assert ('data-testid="no-summary"' in page) is not shown
        label_with(alice, study, issue, "C.1")
    for label in Label.objects.filter(study=study):
        assert label.summary_shown is shows_summary(study, alice.pk, label.issue_id)


def test_the_summary_experiment_can_be_turned_on_only_before_the_independent_round(client_as):
    from annotation.services.studies import StudyError, update_settings

    lead = make_user("lead")
    study = make_study(lead, [make_user()])
    with pytest.raises(StudyError, match="independent round has begun"):
        update_settings(study, lead, name=study.name, description="", overlap=None,
                        pilot_fraction=study.pilot_fraction, seed=study.seed, summary_experiment=True)


def test_the_two_arms_are_compared_with_intervals_and_tests(client_as):
    lead = make_user("lead")
    people = [make_user(f"p{n}") for n in range(4)]
    issues = [make_issue() for _ in range(40)]
    study = make_study(lead, people, issues=issues)
    Study.objects.filter(pk=study.pk).update(summary_experiment=True)
    study = Study.objects.get(pk=study.pk)
    pick = random.Random(2)
    for issue in issues:
        truth = pick.choice(["A.1", "C.1"])
        for person in people:
            # Anchored annotators: with the summary they agree; without it they guess.
            agree = shows_summary(study, person.pk, issue.pk) or pick.random() < 0.5
            label_with(person, study, issue, truth if agree else pick.choice(["A.1", "B.1", "C.2"]))
    result = experiment(study)
    shown, hidden = result["arms"]
    assert shown["labels"] + hidden["labels"] > 100
    assert shown["share"] > hidden["share"]
    assert result["difference"]["value"] == pytest.approx(shown["share"] - hidden["share"])
    low, high = result["difference"]["ci"]
    assert low < result["difference"]["value"] < high and result["difference"]["p"] < 0.05
    assert result["distribution"]["chi2"] is not None and result["distribution"]["cramers_v"] > 0
    page = client_as(lead).get(reverse("findings:summary_experiment", args=[study.pk]))
    assert page.status_code == 200 and b'data-testid="difference"' in page.content


def test_a_study_without_the_experiment_says_there_is_nothing_to_compare(study, lead, client_as):
    page = client_as(lead).get(reverse("findings:summary_experiment", args=[study.pk])).content.decode()
    assert "Nothing to compare" in page
