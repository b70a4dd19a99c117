"""The ORM side: labels in a study become the figures the pure functions compute."""
from __future__ import annotations

import pytest
from django.urls import reverse

from agreement.kappa import fleiss
from agreement.reports import study_agreement
from agreement.tasks import compute_agreement_task
from tests.factories import label_with, make_issue, make_study

pytestmark = pytest.mark.django_db

# Four reports × three annotators, theme-level codes.
LABELS = [
    ("C.1", "C.1", "C.2"),
    ("C.2", "C.2", "C.2"),
    ("B.1", "B.1", "C.3"),
    ("B.2", "NR", "B.2"),
]


@pytest.fixture
def labeled_study(lead, annotator_a, annotator_b, annotator_c):
    issues = [make_issue() for _ in LABELS]
    study = make_study(lead, [annotator_a, annotator_b, annotator_c], issues=issues)
    for issue, codes in zip(issues, LABELS, strict=True):
        for user, code in zip((annotator_a, annotator_b, annotator_c), codes, strict=True):
            label_with(user, study, issue, code)
    return study


def test_type_kappa_counts_not_relevant_as_a_category(labeled_study):
    agreement = study_agreement(labeled_study.rounds.get())
    expected = fleiss({i: [c if c == "NR" else c[0] for c in codes] for i, codes in enumerate(LABELS)})
    assert agreement.by_type.value == pytest.approx(expected.kappa)
    assert agreement.by_type.categories == ["B", "C", "NR"]
    assert (agreement.by_type.n_reports, agreement.by_type.n_raters) == (4, 3)


def test_per_type_uses_reports_of_that_majority_type_and_other_types_as_categories(labeled_study):
    per_type = {t.type.code: t.result for t in study_agreement(labeled_study.rounds.get()).per_type}
    bug = per_type["C"]
    assert bug.n_reports == 2
    assert bug.value == pytest.approx(fleiss({0: list(LABELS[0]), 1: list(LABELS[1])}).kappa)
    requirement = per_type["B"]
    assert requirement.categories == ["B.1", "B.2", "C.3", "NR"]
    assert requirement.n_reports == 2
    assert per_type["A"].value is None and per_type["A"].n_reports == 0


def test_reports_not_every_rater_labeled_are_left_out(lead, annotator_a, annotator_b):
    issues = [make_issue(), make_issue()]
    study = make_study(lead, [annotator_a, annotator_b], issues=issues)
    label_with(annotator_a, study, issues[0], "C.1")
    label_with(annotator_b, study, issues[0], "C.2")
    label_with(annotator_a, study, issues[1], "C.1")
    result = study_agreement(study.rounds.get()).by_type
    assert result.n_reports == 1
    assert result.left_out == [(issues[1].pk, "rated by 1 of 2 raters")]


def test_task_body_returns_the_same_figures(labeled_study):
    figures = compute_agreement_task(labeled_study.rounds.get().pk)
    assert figures["type"]["reports"] == 4
    assert figures["type"]["kappa"] == pytest.approx(study_agreement(labeled_study.rounds.get()).by_type.value)


def test_agreement_stays_on_the_independent_round_during_review(client_as, study, lead, annotator_a, annotator_b,
                                                                annotator_c):
    from annotation.services.phases import advance

    issues = list(study.issues.order_by("created_at", "id"))
    for person in (lead, annotator_a, annotator_b, annotator_c):
        for issue in issues:
            label_with(person, study, issue, "C.1")
    advance(study, lead)
    figures = client_as(lead).get(reverse("api:study_agreement", args=[study.pk])).json()
    assert figures["round"] == 1 and figures["type"]["reports"] == 3 and figures["type"]["raters"] == 4
