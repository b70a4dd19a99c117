"""Which categories people confuse: the coincidence matrix is Krippendorff's, the pairwise alpha is the
krippendorff package's on the two categories alone, and the top pair found is the one planted in a seeded
simulation."""
from __future__ import annotations

import random

import krippendorff
import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from stats.confusion import coincidence_matrix, top_pairs
from stats.tree_alpha import coincidences

CODES = ["A.1", "A.2", "B.1", "C.1"]
tables = st.integers(2, 5).flatmap(lambda raters: st.lists(
    st.lists(st.one_of(st.none(), st.sampled_from(CODES)), min_size=raters, max_size=raters),
    min_size=2, max_size=40))


def _counts(table: list[list[str | None]]) -> np.ndarray:
    counts = np.zeros((len(table), len(CODES)))
    for u, given_ in enumerate(table):
        for v in given_:
            if v is not None:
                counts[u, CODES.index(v)] += 1
    return counts


@settings(max_examples=100, deadline=None)
@given(tables)
def test_the_coincidence_matrix_is_krippendorffs_from_distinct_rows_too(table):
    counts = _counts(table)
    values, expected = coincidences(dict(enumerate(table)))
    at = [CODES.index(v) for v in values]
    whole = coincidence_matrix(counts, np.ones(len(counts)))
    assert np.allclose(whole[np.ix_(at, at)], expected)
    rows, freq = np.unique(counts, axis=0, return_counts=True)
    assert np.allclose(coincidence_matrix(rows, freq), whole)


@pytest.mark.filterwarnings("ignore:invalid value encountered:RuntimeWarning")  # the package's own 0/0
@settings(max_examples=100, deadline=None)
@given(tables)
def test_each_pairs_alpha_is_the_packages_on_the_two_categories_alone(table):
    counts = _counts(table)
    found = top_pairs(counts, np.ones(len(counts), dtype=np.int64), CODES, limit=6, resamples=0)
    assume(found)
    for pair in found:
        two = (pair.first, pair.second)
        data = np.array([[two.index(v) if v in two else np.nan for v in row] for row in table], dtype=float).T
        if pair.alpha is None:
            continue
        assert pair.alpha == pytest.approx(krippendorff.alpha(reliability_data=data, level_of_measurement="nominal"),
                                           abs=1e-9)
    assert [p.coincidences for p in found] == sorted((p.coincidences for p in found), reverse=True)


def test_counts_shares_and_an_interval_around_the_value():
    table = [["A.1", "A.2", "A.1"]] * 6 + [["A.1", "A.1", "A.1"]] * 10 + [["B.1", "C.1", "B.1"]] * 2 + \
        [["C.1", "C.1", None]] * 4 + [["B.1", None, None]] * 3
    counts = _counts(table)
    first, second = top_pairs(counts, np.ones(len(counts), dtype=np.int64), CODES, seed=1)[:2]
    assert (first.first, first.second, first.reports) == ("A.1", "A.2", 6)
    assert first.share == pytest.approx(6 / 22) and first.coincidences == pytest.approx(6 * 4 / 2)
    assert (second.first, second.second, second.reports) == ("B.1", "C.1", 2)
    assert first.ci[0] <= first.alpha <= first.ci[1]
    assert top_pairs(_counts([["A.1", "A.1"]] * 3), np.ones(3, dtype=np.int64), CODES) == []


def _simulated(rng: random.Random, n: int = 300) -> list[list[str]]:
    """Three raters right with chance 0.85; a report of A.1 is read as A.2 a quarter of the time, and every
    other error falls on any code alike: the confusion of A.1 with A.2 is the one planted."""
    themes = ["A.1", "A.2", "B.1", "B.2", "C.1", "C.2", "C.3"]
    table = []
    for _ in range(n):
        truth = rng.choice(themes)
        labels = []
        for _ in range(3):
            if truth == "A.1" and rng.random() < 0.25:
                labels.append("A.2")
            elif rng.random() < 0.85:
                labels.append(truth)
            else:
                labels.append(rng.choice(themes))
        table.append(labels)
    return table


def test_the_planted_confusion_comes_first_in_a_seeded_simulation():
    themes = ["A.1", "A.2", "B.1", "B.2", "C.1", "C.2", "C.3"]
    rng, first = random.Random(11), 0
    for _ in range(200):
        table = _simulated(rng)
        counts = np.array([[row.count(t) for t in themes] for row in table], dtype=float)
        rows, freq = np.unique(counts, axis=0, return_counts=True)
        top = top_pairs(rows, freq, themes, limit=1, resamples=0)[0]
        first += (top.first, top.second) == ("A.1", "A.2")
    assert first >= 190, first  # 95 % of 200 studies of 300 reports


def test_the_pairs_interval_covers_its_population_alpha():
    """The planted pair's alpha over 100,000 reports is the population's; the 95 % interval of a study of 300
    reports covers it in at least 90 % of 200 seeded studies (a percentile bootstrap of 200 resamples)."""
    themes = ["A.1", "A.2", "B.1", "B.2", "C.1", "C.2", "C.3"]

    def pair_of(table, resamples, seed=0):
        counts = np.array([[row.count(t) for t in themes] for row in table], dtype=float)
        rows, freq = np.unique(counts, axis=0, return_counts=True)
        return next(p for p in top_pairs(rows, freq, themes, limit=3, resamples=resamples, seed=seed)
                    if (p.first, p.second) == ("A.1", "A.2"))

    rng = random.Random(12)
    population = pair_of(_simulated(rng, 100_000), 0).alpha
    covered = 0
    for k in range(200):
        found = pair_of(_simulated(rng), 200, seed=k)
        covered += found.ci[0] <= population <= found.ci[1]
    assert covered >= 180, covered
