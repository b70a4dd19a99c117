"""The ORM side: labels in a study become the figures the pure functions compute."""
from __future__ import annotations

import pytest
from django.urls import reverse

from agreement.reports import study_agreement
from agreement.services import compute_agreement_task
from stats.kappa import fleiss
from tests.factories import label_with, make_issue, make_study, study_labeled_as

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
    return study_labeled_as(lead, [annotator_a, annotator_b, annotator_c], LABELS)


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


def test_the_api_serves_kept_figures_while_the_labels_stand_and_new_ones_once_they_change(
        client_as, labeled_study, lead, annotator_a):
    from agreement.models import AgreementSnapshot
    from annotation.services.phases import advance

    advance(labeled_study, lead, confirm_missing=True)  # the round closed: the lead sees agreement
    url = reverse("api:study_agreement", args=[labeled_study.pk])
    first = client_as(lead).get(url).json()
    assert first["type"]["reports"] == 4 and first["snapshot"]["labels"] == 12
    assert client_as(lead).get(url).json() == first  # nothing changed: the same snapshot, no new computation
    assert AgreementSnapshot.objects.count() == 1

    from django.utils import timezone

    from annotation.models import Label

    # A label changed since (its time is what tells): the figures are computed again.
    changed = Label.objects.filter(annotator=annotator_a, round__study=labeled_study).order_by("pk").first()
    Label.objects.filter(pk=changed.pk).update(updated_at=timezone.now())
    again = client_as(lead).get(url).json()
    assert again["snapshot"]["id"] != first["snapshot"]["id"] and AgreementSnapshot.objects.count() == 2


def test_the_api_answers_202_while_a_worker_computes(client_as, labeled_study, lead, monkeypatch):
    from agreement import api
    from annotation.services.phases import advance

    advance(labeled_study, lead, confirm_missing=True)
    monkeypatch.setattr(api, "request_snapshot", lambda *args, **kwargs: None)  # sent; the worker is busy
    response = client_as(lead).get(reverse("api:study_agreement", args=[labeled_study.pk]), {"level": "sub_theme"})
    assert response.status_code == 202 and response["Retry-After"] == "2"
    assert response.json() == {"computing": True, "round": 1, "level": "sub_theme"}


def test_the_api_computes_again_once_a_final_label_is_made(client_as, labeled_study, lead):
    from agreement.models import AgreementSnapshot
    from annotation.models import FinalLabel
    from annotation.services.phases import advance
    from taxonomy.models import Category

    advance(labeled_study, lead, confirm_missing=True)
    url = reverse("api:study_agreement", args=[labeled_study.pk])
    first = client_as(lead).get(url).json()
    assert first["basis"].startswith("plurality")
    # The tied report 4 (B.2, NR, B.2 → type B) decided as a bug: the per-type figures change with it.
    issue = labeled_study.issues.order_by("pk").last()
    bug = Category.objects.get(codebook=labeled_study.codebook, code="C")
    FinalLabel.objects.create(study=labeled_study, issue=issue, method=FinalLabel.Method.LEAD, type=bug,
                            decided_by=lead)
    again = client_as(lead).get(url).json()
    assert again["snapshot"]["id"] != first["snapshot"]["id"] and AgreementSnapshot.objects.count() == 2
    assert again["basis"] != first["basis"]


def test_the_tree_distances_alpha_reads_each_label_as_its_path(labeled_study, lead, annotator_a):
    """Over every report with whole paths, and per type over that type's reports, as stats.tree_alpha computes
    it from the same labels; with sub-themes, siblings part lower than themes."""
    from stats.tree_alpha import tree_alpha

    def path(code: str) -> tuple[str, ...]:
        parts = code.split(".")
        return tuple(".".join(parts[:k]) for k in range(1, len(parts) + 1))

    agreement = study_agreement(labeled_study.rounds.get())
    everything = {i: [path(c) for c in codes] for i, codes in enumerate(LABELS)}
    assert agreement.tree_alpha == pytest.approx(tree_alpha(everything), abs=1e-12)
    per_type = {t.type.code: t.tree_alpha for t in agreement.per_type}
    assert per_type["C"] == pytest.approx(tree_alpha({0: everything[0], 1: everything[1]}), abs=1e-12)
    assert per_type["B"] == pytest.approx(tree_alpha({2: everything[2], 3: everything[3]}), abs=1e-12)
    assert per_type["A"] is None
    # On the dashboard, beside Fleiss' kappa.
    from agreement.reports import agreement_figures
    shown = agreement_figures(agreement)
    assert shown["tree_alpha"] == agreement.tree_alpha and shown["per_type"][2]["tree_alpha"] == per_type["C"]


def test_at_sub_theme_level_a_split_into_siblings_costs_a_third(lead, annotator_a, annotator_b):
    from stats.tree_alpha import tree_alpha

    study = study_labeled_as(lead, [annotator_a, annotator_b],
                             [("C.1.i", "C.1.ii"), ("C.1.i", "C.1.i"), ("A.1", "A.1"), ("C.2", "C.2")])
    agreement = study_agreement(study.rounds.get(), level="sub_theme")
    i, ii, a1, c2 = ("C", "C.1", "C.1.i"), ("C", "C.1", "C.1.ii"), ("A", "A.1"), ("C", "C.2")
    assert agreement.tree_alpha == pytest.approx(tree_alpha({0: [i, ii], 1: [i, i], 2: [a1, a1], 3: [c2, c2]}))
    at_theme = study_agreement(study.rounds.get(), level="theme").tree_alpha
    assert at_theme == pytest.approx(1.0)  # at theme level the two sub-themes are one theme


def test_the_most_confused_pairs_are_kept_and_shown(labeled_study, client_as, lead):
    """At type level and at the level, as stats.confusion finds them on the same labels; on the dashboard."""
    from agreement.reports import agreement_figures

    figures = agreement_figures(study_agreement(labeled_study.rounds.get()))
    types = {(p["first"], p["second"]): p for p in figures["confusion"]["type"]}
    # C and B meet on report 3 (B.1, B.1, C.3); B and NR on report 4 (B.2, NR, B.2).
    assert set(types) == {("B", "C"), ("B", "NR")}
    assert types[("B", "C")]["reports"] == 1 and types[("B", "C")]["share"] == pytest.approx(1 / 4)
    themes = {(p["first"], p["second"]) for p in figures["confusion"]["theme"]}
    assert themes == {("C.1", "C.2"), ("B.1", "C.3"), ("B.2", "NR")}
    page = client_as(lead).get(reverse("agreement:study_agreement", args=[labeled_study.pk])).content.decode()
    assert 'data-testid="confusion-type"' in page and 'data-pair="C.1|C.2"' in page
