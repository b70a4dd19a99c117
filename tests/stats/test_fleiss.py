"""Fleiss' kappa against published worked examples; no database."""
from __future__ import annotations

import csv
from pathlib import Path

import pytest

from stats.kappa import fleiss
from stats.matrices import count_matrix
from taxonomy.codes import sort_key

DATA = Path(__file__).parent / "data"


def _ratings_from_counts(path: Path) -> dict[str, list[str]]:
    ratings = {}
    with open(path, newline="") as f:
        for row in csv.DictReader(f):
            ratings[row["subject"]] = [c for c in ("cat1", "cat2", "cat3", "cat4", "cat5") for _ in range(int(row[c]))]
    return ratings


def _ratings_from_raw(path: Path, label_columns: list[str], subject: str) -> dict[str, list[str]]:
    with open(path, newline="", encoding="utf-8") as f:
        return {row[subject]: [row[c] for c in label_columns] for row in csv.DictReader(f)}


def test_wikipedia_worked_example_is_0_210():
    result = fleiss(_ratings_from_counts(DATA / "wikipedia_fleiss_counts.csv"))
    assert result.kappa == pytest.approx(0.2099, abs=5e-4)
    assert (result.n_subjects, result.n_raters, len(result.categories)) == (10, 14, 5)


def test_fleiss_1971_diagnoses_is_0_430():
    ratings = _ratings_from_raw(DATA / "fleiss1971_diagnoses.csv", [f"rater{i}" for i in range(1, 7)], "subject")
    assert fleiss(ratings).kappa == pytest.approx(0.4302445, abs=1e-6)


def test_the_studys_published_question_kappa_0_757_reproduces():
    ratings = _ratings_from_raw(DATA / "paper_question_labels.csv", [f"Label{i}" for i in range(1, 8)], "Issue_URL")
    result = fleiss(ratings)
    assert result.n_subjects == 542 and result.n_raters == 7
    assert round(result.kappa, 3) == 0.757
    assert result.kappa == pytest.approx(0.757467, abs=1e-6)


def test_hand_computed_small_case():
    # 3 subjects × 3 raters: P_i = 1, 1/3, 1/3 → P̄ = 5/9; p_j = 4/9, 5/9 → P̄e = 41/81.
    # κ = (5/9 − 41/81) / (1 − 41/81) = (45 − 41) / (81 − 41) = 0.1
    result = fleiss({1: ["A", "A", "A"], 2: ["A", "B", "B"], 3: ["B", "B", "A"]})
    assert result.kappa == pytest.approx(0.1)


def test_subjects_with_missing_ratings_are_left_out_with_a_reason():
    matrix = count_matrix({1: ["A", "A", "B"], 2: ["A", "B"], 3: ["B", "B", "B"]})
    assert matrix.subjects == [1, 3]
    assert matrix.left_out == [(2, "rated by 2 of 3 raters")]
    assert matrix.counts.tolist() == [[2, 1], [0, 3]]


def test_categories_sort_in_the_order_given():
    assert count_matrix({1: ["C.10", "C.2", "C.1"]}, order=sort_key).categories == ["C.1", "C.2", "C.10"]
    assert count_matrix({1: ["C.9.v", "C.9.ix"]}, order=sort_key).categories == ["C.9.v", "C.9.ix"]


@pytest.mark.parametrize(
    ("ratings", "why"),
    [
        ({}, "no report"),
        ({1: ["A"], 2: ["B"]}, "fewer than two raters"),
        ({1: ["A", "A"], 2: ["A", "A"]}, "same single category"),
    ],
)
def test_undefined_kappa_says_why_instead_of_nan(ratings, why):
    result = fleiss(ratings)
    assert result.kappa is None
    assert why in result.undefined_because
