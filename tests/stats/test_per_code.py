"""Reliability per code: alpha-binary against the krippendorff package, per-category kappa
against Fleiss (1971), on data with and without missing ratings."""
from __future__ import annotations

import csv
from pathlib import Path

import krippendorff
import numpy as np
import pytest

from stats.matrices import counts_of, rating_table
from stats.per_code import per_code

DATA = Path(__file__).parent / "data"


def _table(name: str, skip: int):
    with open(DATA / name, newline="") as f:
        rows = list(csv.reader(f))[1:]
    return rating_table({n: [v or None for v in row[skip:]] for n, row in enumerate(rows)})


@pytest.mark.parametrize("name, skip", [("gwet_raw_4raters.csv", 1), ("gwet_raw_5observers.csv", 1),
                                        ("gwet_raw_gender.csv", 2), ("krippendorff_wikipedia.csv", 1)])
def test_alpha_binary_matches_the_krippendorff_package(name, skip):
    table = _table(name, skip)
    rows = per_code(counts_of(table), table.categories, resamples=200)
    for row in rows:
        j = table.categories.index(row["category"])
        # Reliability data as the package takes it: raters × units, 1 for this code, 0 for another, nan for none.
        binary = np.where(table.codes.T < 0, np.nan, (table.codes.T == j).astype(float))
        expected = krippendorff.alpha(reliability_data=binary, level_of_measurement="nominal")
        assert row["alpha"]["value"] == pytest.approx(expected, abs=1e-9), row["category"]
        low, high = row["alpha"]["ci"]
        assert low <= row["alpha"]["value"] <= high


def test_per_category_kappas_of_fleiss_1971():
    with open(DATA / "fleiss1971_diagnoses.csv", newline="") as f:
        ratings = {row["subject"]: [row[f"rater{i}"] for i in range(1, 7)] for row in csv.DictReader(f)}
    table = rating_table(ratings)
    rows = {r["category"]: r for r in per_code(counts_of(table), table.categories, resamples=100)}
    # Depression, Personality Disorder, Schizophrenia, Neurosis, Other.
    names = ["Depression", "Personality Disorder", "Schizophrenia", "Neurosis", "Other"]
    assert [round(rows[c]["kappa"]["value"], 3) for c in names] == [0.245, 0.245, 0.520, 0.471, 0.566]
    assert all(r["kappa"]["n"] == 30 and r["alpha"]["n"] == 30 for r in rows.values())
    assert [rows[c]["uses"] for c in names] == [26, 26, 30, 55, 43]  # the published category totals


def test_a_code_nobody_or_everybody_used_is_left_out_or_undefined():
    rows = per_code(np.array([[2, 0, 0], [2, 0, 0]]), ["A", "B", "C"], resamples=10)
    assert [r["category"] for r in rows] == ["A"]
    assert rows[0]["alpha"]["value"] is None and rows[0]["alpha"]["undefined_because"]
    assert per_code(np.array([[1, 0], [0, 1]]), ["A", "B"])[0]["alpha"]["undefined_because"] == \
        "no report has two or more ratings"


def test_per_category_kappa_says_how_many_reports_it_left_out_for_a_missing_rating():
    # Three raters; two of five reports have a rating missing.
    counts = np.array([[3, 0], [0, 3], [2, 1], [2, 0], [1, 1]])
    rows = per_code(counts, ["A", "B"], resamples=0)
    kappa = rows[0]["kappa"]
    assert (kappa["n"], kappa["left_out"]) == (3, 2)
    assert "3 of 5 reports, 2 with a rating missing left out" in kappa["method"]
    full = per_code(counts[:3], ["A", "B"], resamples=0)[0]["kappa"]
    assert full["left_out"] == 0 and full["method"].endswith("reports rated by every rater")


@pytest.mark.parametrize("missing", [False, True], ids=["every-rater", "a-rating-missing"])
def test_intervals_are_the_percentiles_of_the_figures_of_each_resample(missing):
    """Whichever sums a figure is resampled from (h and h·(m − h) when every unit has all its ratings, the
    per-unit parts otherwise), its interval is that of the figure recomputed from each resample's weights."""
    from stats.matrices import distinct_rows
    from stats.per_code import _alpha_binary, _alpha_parts, _kappa_j, _kappa_parts
    from stats.resampling import resample_weights

    rng = np.random.default_rng(12)
    truth = rng.integers(0, 4, size=600)
    codes = np.where(rng.random((600, 5)) < 0.75, truth[:, None], rng.integers(0, 4, size=(600, 5)))
    counts = np.stack([(codes == c).sum(axis=1) for c in range(4)], axis=1)
    if missing:
        counts[::7, 0] = np.maximum(counts[::7, 0] - 1, 0)  # some units with a rating fewer
    found = per_code(counts, list("ABCD"), resamples=200, seed=4)
    rows, freq = distinct_rows(counts[counts.sum(axis=1) >= 2])
    weights = np.concatenate(list(resample_weights(freq, 200, 4))).astype(np.float64)
    alphas = _alpha_binary(weights @ _alpha_parts(rows, rows.sum(axis=1).astype(float)))
    complete = rows.sum(axis=1) == 5
    if missing:  # kappa rests on the complete units: resampled over their own distinct rows
        kept, often = distinct_rows(counts[counts.sum(axis=1) == 5])
        kappa_weights = np.concatenate(list(resample_weights(often, 200, 4))).astype(np.float64)
        kappas = _kappa_j(kappa_weights @ _kappa_parts(kept, 5), 5)
    else:
        assert complete.all()
        kappas = _kappa_j(weights @ _kappa_parts(rows, 5), 5)
    for j, row in enumerate(found):
        assert row["alpha"]["ci"] == pytest.approx(np.percentile(alphas[:, j], [2.5, 97.5]), abs=1e-5)
        assert row["kappa"]["ci"] == pytest.approx(np.percentile(kappas[:, j], [2.5, 97.5]), abs=1e-5)
