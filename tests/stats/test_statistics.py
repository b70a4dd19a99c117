"""Every statistic against published values, against statsmodels and the krippendorff package on random data,
and on the degenerate cases that must say "undefined" instead of crashing or printing NaN."""
from __future__ import annotations

import csv
from pathlib import Path

import krippendorff
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from statsmodels.stats.inter_rater import fleiss_kappa

from stats.alpha import alpha_figure, nominal_alpha, unit_counts
from stats.kappa import bootstrap_kappa, fleiss_figure
from stats.matrices import count_matrix
from stats.raters import rater_agreement

DATA = Path(__file__).parent / "data"


def _by_observer_rows(path: Path) -> dict[str, list[str | None]]:
    """Layouts with one row per observer and one column per unit → unit → values (None = missing)."""
    with open(path, newline="") as f:
        rows = list(csv.reader(f))
    units = rows[0][1:]
    return {u: [row[1 + i] or None for row in rows[1:]] for i, u in enumerate(units)}


def _by_unit_rows(path: Path, skip: int) -> dict[str, list[str | None]]:
    with open(path, newline="") as f:
        rows = list(csv.reader(f))
    return {f"{n}": [v or None for v in row[skip:]] for n, row in enumerate(rows[1:])}


def test_fleiss_1971_kappa_and_per_category_kappas():
    with open(DATA / "fleiss1971_diagnoses.csv", newline="") as f:
        ratings = {row["subject"]: [row[f"rater{i}"] for i in range(1, 7)] for row in csv.DictReader(f)}
    figure = fleiss_figure(ratings, level="diagnosis")
    assert figure.value == pytest.approx(0.4302445, abs=1e-6)
    assert figure.value == pytest.approx((figure.observed - figure.expected) / (1 - figure.expected))
    assert (figure.n_reports, figure.n_raters, len(figure.categories)) == (30, 6, 5)
    # Fleiss (1971) category-wise kappas: Depression, Personality disorder, Schizophrenia, Neurosis, Other.
    by_name = dict(zip(["Depression", "Personality Disorder", "Schizophrenia", "Neurosis", "Other"],
                       [0.245, 0.245, 0.520, 0.471, 0.566], strict=True))
    for category, expected in by_name.items():
        assert figure.per_category[category] == pytest.approx(expected, abs=5e-4)
    assert figure.ci_low < figure.value < figure.ci_high


@pytest.mark.parametrize("path, expected", [
    ("krippendorff_c_data.csv", 0.743421),
    ("krippendorff_wikipedia.csv", 0.691358),
])
def test_krippendorff_published_examples(path, expected):
    figure = alpha_figure(_by_observer_rows(DATA / path), level="unit")
    assert figure.value == pytest.approx(expected, abs=1e-6)


@pytest.mark.parametrize("name, skip, expected", [
    ("gwet_raw_4raters.csv", 1, 0.743), ("gwet_raw_5observers.csv", 1, 0.481), ("gwet_raw_ben_gerry.csv", 2, 0.665),
    ("gwet_raw_gender.csv", 2, 0.143), ("gwet_raw_g1g2.csv", 2, 0.632),
])
def test_krippendorff_on_gwets_datasets_with_missing_ratings(name, skip, expected):
    assert alpha_figure(_by_unit_rows(DATA / name, skip), level="unit").value == pytest.approx(expected, abs=5e-4)


ratings_tables = st.integers(2, 6).flatmap(lambda raters: st.lists(
    st.lists(st.one_of(st.none(), st.integers(0, 3)), min_size=raters, max_size=raters), min_size=2, max_size=40))


@pytest.mark.filterwarnings("ignore:invalid value encountered:RuntimeWarning")  # the package's own 0/0
@settings(max_examples=150, deadline=None)
@given(ratings_tables)
def test_alpha_matches_the_krippendorff_package(table):
    ratings = {i: [None if v is None else str(v) for v in row] for i, row in enumerate(table)}
    _, categories, counts = unit_counts(ratings)
    ours = nominal_alpha(counts) if len(categories) >= 2 else None
    data = np.array([[np.nan if v is None else v for v in row] for row in table], dtype=float).T
    try:
        theirs = krippendorff.alpha(reliability_data=data, level_of_measurement="nominal")
    except (ValueError, ZeroDivisionError):
        theirs = float("nan")
    if ours is None:
        assert not np.isfinite(theirs) or len(categories) < 2
    else:
        assert ours == pytest.approx(theirs, abs=1e-9)


complete_tables = st.integers(2, 7).flatmap(lambda raters: st.lists(
    st.lists(st.integers(0, 4), min_size=raters, max_size=raters), min_size=2, max_size=60))


@settings(max_examples=150, deadline=None)
@given(complete_tables)
def test_fleiss_matches_statsmodels_and_its_interval_is_reproducible(table):
    ratings = {i: [str(v) for v in row] for i, row in enumerate(table)}
    figure = fleiss_figure(ratings, level="type", resamples=200, seed=3)
    matrix = count_matrix(ratings)
    if len(matrix.categories) < 2:
        assert figure.value is None and "single category" in figure.undefined_because
        return
    expected = fleiss_kappa(matrix.counts, method="fleiss")
    if np.isfinite(expected):
        assert figure.value == pytest.approx(expected, abs=1e-9)
    again = fleiss_figure(ratings, level="type", resamples=200, seed=3)
    assert (again.ci_low, again.ci_high) == (figure.ci_low, figure.ci_high)


def test_bootstrap_interval_is_centred_on_the_estimate_for_a_large_sample():
    rng = np.random.default_rng(1)
    truth = rng.integers(0, 3, size=3000)
    noisy = np.where(rng.random((3000, 5)) < 0.8, truth[:, None], rng.integers(0, 3, size=(3000, 5)))
    counts = np.stack([(noisy == c).sum(axis=1) for c in range(3)], axis=1)
    kappa = fleiss_kappa(counts)
    low, high = bootstrap_kappa(counts, resamples=1000, seed=0)
    assert low < kappa < high and high - low < 0.05


@pytest.mark.parametrize("ratings, reason", [
    ({}, "no report has a complete set of ratings"),
    ({"r1": ["A"], "r2": ["B"]}, "fewer than two raters"),
    ({"r1": ["A", "A"], "r2": ["A", "A"]}, "single category"),
])
def test_degenerate_cases_are_undefined_with_a_reason(ratings, reason):
    figure = fleiss_figure(ratings, level="type")
    assert figure.value is None and reason in figure.undefined_because
    assert figure.ci_low is None and figure.observed is None


def test_alpha_degenerate_cases():
    assert "no report" in alpha_figure({"u": ["A", None]}, level="type").undefined_because
    assert "single category" in alpha_figure({"u": ["A", "A"], "v": ["A", None, "A"]}, level="type").undefined_because


def test_fleiss_leaves_out_incomplete_reports_and_says_why():
    figure = fleiss_figure({"a": ["X", "Y", "X"], "b": ["X", "X", "X"], "c": ["X", "Y"]}, level="type")
    assert figure.n_reports == 2 and figure.left_out == [("c", "rated by 2 of 3 raters")]
    assert figure.as_dict()["left_out_reasons"] == {"rated by 2 of 3 raters": 1}


def test_each_raters_agreement_with_the_others():
    ratings = {1: {"a": "X", "b": "X", "c": "Y"}, 2: {"a": "X", "b": "X", "c": "X"}, 3: {"a": "Y", "b": "X"}}
    result = {r.rater: r for r in rater_agreement(ratings)}
    # a agrees with 1 of 2 others on report 1, 2 of 2 on report 2, 0 of 1 on report 3: 3 of 5.
    assert result["a"].agreement == pytest.approx(3 / 5) and result["a"].reports == 3
    assert result["c"].agreement == pytest.approx(2 / 4)
