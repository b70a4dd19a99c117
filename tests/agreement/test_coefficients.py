"""AC1 and Brennan–Prediger beside Fleiss' kappa, against the published values of Gwet's
irrCAC (its unit tests, which mirror Gwet's R package and book) on raw ratings with missing values and on
two-rater contingency tables."""
from __future__ import annotations

import csv
from pathlib import Path

import numpy as np
import pytest

from stats.coefficients import coefficients, diverge
from stats.matrices import counts_of, rating_table

DATA = Path(__file__).parent.parent / "stats" / "data"


def _raw_counts(name: str, skip: int) -> np.ndarray:
    with open(DATA / name, newline="") as f:
        rows = list(csv.reader(f))[1:]
    return counts_of(rating_table({n: [v or None for v in row[skip:]] for n, row in enumerate(rows)}))


def _table_counts(name: str) -> np.ndarray:
    """A two-rater contingency table as units × categories counts: cell (i, j) is that many units rated i and j."""
    with open(DATA / name, newline="") as f:
        rows = list(csv.reader(f))
    table = np.array([[int(v) for v in row[1:]] for row in rows[1:]])
    units = []
    for i, j in np.ndindex(table.shape):
        row = np.zeros(len(table), dtype=int)
        row[i] += 1
        row[j] += 1
        units += [row] * table[i, j]
    return np.array(units)


@pytest.mark.parametrize("name, skip, pa, fleiss, ac1, bp", [
    ("gwet_raw_4raters.csv", 1, 0.818, 0.761, 0.775, 0.773),
    ("gwet_raw_5observers.csv", 1, 0.616, 0.458, 0.497, 0.487),
    ("gwet_raw_g1g2.csv", 2, 0.744, 0.657, 0.685, 0.679),
    ("gwet_raw_gender.csv", 2, 0.456, 0.129, 0.208, 0.183),
    ("gwet_raw_ben_gerry.csv", 2, 0.727, 0.649, 0.661, 0.659),
])
def test_gwets_raw_datasets_with_missing_ratings(name, skip, pa, fleiss, ac1, bp):
    found = coefficients(_raw_counts(name, skip), resamples=0)
    assert found["fleiss"].observed == pytest.approx(pa, abs=5e-4)
    assert found["fleiss"].value == pytest.approx(fleiss, abs=5e-4)
    assert found["ac1"].value == pytest.approx(ac1, abs=5e-4)
    assert found["brennan_prediger"].value == pytest.approx(bp, abs=5e-4)


def test_the_chance_agreements_published_for_raw_4raters():
    found = coefficients(_raw_counts("gwet_raw_4raters.csv", 1), resamples=0)
    assert found["fleiss"].chance == pytest.approx(0.239, abs=5e-4)
    assert found["ac1"].chance == pytest.approx(0.190, abs=5e-4)
    assert found["brennan_prediger"].chance == pytest.approx(0.200, abs=5e-4)


@pytest.mark.parametrize("name, pa, ac1, bp", [
    ("gwet_table_cont3x3abstractors.csv", 0.890, 0.849, 0.835),
    ("gwet_table_cont4x4diagnosis.csv", 0.587, 0.456, 0.450),
])
def test_gwets_two_rater_tables(name, pa, ac1, bp):
    found = coefficients(_table_counts(name), resamples=0)
    assert found["ac1"].observed == pytest.approx(pa, abs=5e-4)
    assert found["ac1"].value == pytest.approx(ac1, abs=5e-4)
    assert found["brennan_prediger"].value == pytest.approx(bp, abs=5e-4)


def test_the_prevalence_paradox_is_named_when_kappa_and_ac1_part():
    # 100 reports, 3 raters, almost all "bug": the raters agree on 96 % of pairs, yet kappa is near zero.
    counts = np.array([[3, 0]] * 94 + [[2, 1]] * 6)
    found = coefficients(counts, resamples=200, seed=1)
    assert found["fleiss"].value < 0 < 0.9 < found["ac1"].value
    assert found["ac1"].ci_low < found["ac1"].value < found["ac1"].ci_high
    assert "prevalence paradox" in diverge(found)
    assert diverge(coefficients(_raw_counts("gwet_raw_4raters.csv", 1), resamples=0)) == ""


def test_undefined_coefficients_say_why():
    assert coefficients(np.array([[1, 0], [0, 1]]))["ac1"].undefined_because == "no report has two or more ratings"
    assert coefficients(np.array([[2], [3]]))["fleiss"].undefined_because.startswith("one category")
    assert coefficients(np.array([[2, 0], [3, 0]]))["fleiss"].undefined_because.startswith("chance agreement")


def test_with_every_rating_present_gwets_form_is_fleiss_kappa():
    with open(DATA / "fleiss1971_diagnoses.csv", newline="") as f:
        ratings = {row["subject"]: [row[f"rater{i}"] for i in range(1, 7)] for row in csv.DictReader(f)}
    found = coefficients(counts_of(rating_table(ratings)), resamples=100)
    assert found["fleiss"].value == pytest.approx(0.4302445, abs=1e-6)
    assert found["fleiss"].ci_low < 0.4302445 < found["fleiss"].ci_high


def test_brennan_prediger_over_the_categories_the_codebook_offers_stands_beside_the_one_over_those_used():
    # Five categories used of the 76 a sub-theme codebook offers (75 and "not relevant").
    counts = np.array([[3, 0, 0, 0, 0], [0, 3, 0, 0, 0], [1, 1, 1, 0, 0], [0, 0, 2, 1, 0], [0, 0, 0, 1, 2]])
    found = coefficients(counts, offered=76, resamples=200)
    used, offered = found["brennan_prediger"], found["brennan_prediger_codebook"]
    pa = used.observed
    assert (used.n_categories, offered.n_categories) == (5, 76)
    assert used.value == pytest.approx((pa - 1 / 5) / (1 - 1 / 5))
    assert offered.value == pytest.approx((pa - 1 / 76) / (1 - 1 / 76))
    assert offered.value > used.value and offered.ci_low <= offered.value <= offered.ci_high
    assert "offers" in offered.method and "used" in used.method
    assert "brennan_prediger_codebook" not in coefficients(counts, resamples=0)


@pytest.mark.django_db
def test_the_dashboard_gives_brennan_prediger_with_the_codebooks_count(lead, annotator_a, annotator_b):
    from agreement.reports import agreement_figures, study_agreement
    from taxonomy.models import Category
    from tests.factories import label_with, make_issue, make_study

    issues = [make_issue() for _ in range(4)]
    study = make_study(lead, [annotator_a, annotator_b], issues=issues)
    for issue, (a, b) in zip(issues, [("C.1.i", "C.1.i"), ("C.2.i", "C.2.ii"), ("A.1", "A.1"), ("C.3", "C.3")],
                             strict=True):
        label_with(annotator_a, study, issue, a)
        label_with(annotator_b, study, issue, b)
    figures = agreement_figures(study_agreement(study.rounds.get(), "sub_theme", resamples=20))
    live = Category.objects.filter(codebook=study.codebook, retired_at__isnull=True)
    by_name = {c["name"]: c for c in figures["type_others"]["coefficients"]}
    assert by_name["brennan_prediger_codebook"]["categories"] == live.filter(level="type").count() + 1
    bug = next(t for t in figures["per_type"] if t["type"] == "C")
    by_name = {c["name"]: c for c in bug["others"]["coefficients"]}
    assert by_name["brennan_prediger_codebook"]["categories"] == live.filter(level="sub_theme").count() + 1
