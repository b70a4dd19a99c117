"""The study's tree distance: set by the lead, refused when it does not grow up the tree, and the figures follow."""
from __future__ import annotations

import pytest
from django.db import IntegrityError, transaction
from django.urls import reverse

from agreement.models import AgreementSnapshot
from annotation.models import Study
from tests.factories import label_with, make_issue, make_study

pytestmark = pytest.mark.django_db


@pytest.fixture
def split(lead, annotator_a, annotator_b):
    """Reports split between sibling sub-themes, and between types."""
    issues = [make_issue() for _ in range(8)]
    study = make_study(lead, [annotator_a, annotator_b], issues=issues)
    rows = [("C.1.i", "C.1.ii", "C.1.i"), ("C.1.ii", "C.1.ii", "C.1.i"), ("A.1", "A.1", "B.1"),
            ("C.2", "C.2", "C.2")] * 2
    for issue, codes in zip(issues, rows, strict=True):
        for person, code in zip((lead, annotator_a, annotator_b), codes, strict=True):
            label_with(person, study, issue, code)
    return study


def _settings(study, **changes) -> dict:
    return {"name": study.name, "description": "", "overlap": "", "pilot_percent": str(study.pilot_fraction * 100),
            "seed": str(study.seed),
            "queue_order": study.queue_order, "tree_sibling": str(study.tree_sibling),
            "tree_same_type": str(study.tree_same_type), **changes}


def test_the_lead_sets_the_distances_and_the_dashboard_follows(split, lead, client_as):
    client = client_as(lead)
    dashboard = reverse("agreement:study_agreement", args=[split.pk])
    client.get(dashboard, {"level": "sub_theme"})
    before = AgreementSnapshot.objects.get().figures
    assert before["tree_distance"] == {"sibling": 1 / 3, "same_type": 2 / 3}
    saved = client.post(reverse("annotation:study_settings", args=[split.pk]),
                        _settings(split, tree_sibling="0", tree_same_type="0.5"))
    assert saved.status_code == 302
    page = client.get(dashboard, {"level": "sub_theme"}).content.decode()
    after = AgreementSnapshot.objects.latest("computed_at", "id").figures
    assert after["tree_distance"] == {"sibling": 0.0, "same_type": 0.5}
    # Splits into siblings now cost nothing: the alpha over whole paths rises.
    assert after["tree_alpha"] > before["tree_alpha"]
    assert "as 0.000 of a disagreement, at the theme as 0.500" in page


@pytest.mark.parametrize(("sibling", "same_type", "said"), [
    ("0.8", "0.5", "grows up the tree"), ("nan", "0.5", "number"), ("inf", "0.5", "number"),
    ("-0.1", "0.5", "greater than or equal to 0"), ("0.2", "1.5", "less than or equal to 1"),
    ("0.2", "0.1", "grows up the tree"), ("x" * 10_000, "0.5", "number"),
])
def test_a_distance_that_does_not_grow_up_the_tree_is_refused_with_its_name(split, lead, client_as, sibling,
                                                                           same_type, said):
    response = client_as(lead).post(reverse("annotation:study_settings", args=[split.pk]),
                                    _settings(split, tree_sibling=sibling, tree_same_type=same_type))
    assert response.status_code == 400 and said in response.content.decode()
    split.refresh_from_db()
    assert (split.tree_sibling, split.tree_same_type) == (1 / 3, 2 / 3)


def test_a_form_without_the_distances_keeps_them(split, lead, client_as):
    Study.objects.filter(pk=split.pk).update(tree_sibling=0.25, tree_same_type=0.5)
    split.refresh_from_db()
    data = {k: v for k, v in _settings(split).items() if not k.startswith("tree_")}
    assert client_as(lead).post(reverse("annotation:study_settings", args=[split.pk]), data).status_code == 302
    split.refresh_from_db()
    assert (split.tree_sibling, split.tree_same_type) == (0.25, 0.5)


def test_the_database_refuses_a_distance_that_shrinks_up_the_tree(split):
    with pytest.raises(IntegrityError), transaction.atomic():
        Study.objects.filter(pk=split.pk).update(tree_sibling=0.9, tree_same_type=0.5)
