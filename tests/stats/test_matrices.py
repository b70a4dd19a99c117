"""stats.matrices: distinct count rows as numpy finds them, faster, and never two rows taken for one."""
from __future__ import annotations

import numpy as np
import pytest

from stats.matrices import distinct_rows


@pytest.mark.parametrize("counts", [
    np.array([[2, 0, 1], [0, 3, 0], [2, 0, 1], [1, 1, 1], [0, 3, 0]], dtype=float),
    np.array([[300, 1], [300, 1], [2, 299]], dtype=float),  # over 255: the general path
    np.array([[0.5, 1.5], [0.5, 1.5]]),  # not whole counts
    np.zeros((0, 4)),
    np.random.default_rng(3).integers(0, 8, size=(5000, 75)).astype(float),
])
def test_distinct_rows_are_numpys_unique_rows(counts):
    rows, freq = distinct_rows(counts)
    expected_rows, expected_freq = np.unique(counts, axis=0, return_counts=True)
    order = np.lexsort(rows.T[::-1]) if rows.size else np.arange(len(rows))  # numpy's order: by row
    assert np.array_equal(rows[order], expected_rows) and np.array_equal(freq[order], expected_freq)
    assert rows.dtype == counts.dtype


@pytest.mark.parametrize("raters, categories", [(7, 75), (40, 75)], ids=["packed", "too-wide-to-pack"])
def test_grouped_counts_are_each_subjects_counts_row_once_with_its_frequency(raters, categories):
    from stats.matrices import RatingTable, counts_of, grouped_counts

    rng = np.random.default_rng(5)
    codes = rng.integers(-1, 4, size=(3000, raters)).astype(np.int32)  # −1: a rating missing
    codes[::3] = rng.integers(0, categories, size=(1000, raters))
    table = RatingTable(list(range(3000)), [f"c{i}" for i in range(categories)], codes)
    rows = rng.random(3000) < 0.7
    distinct, freq, inverse = grouped_counts(table, rows)
    dense = counts_of(table, rows)
    assert np.array_equal(distinct[inverse], dense)
    assert np.array_equal(np.bincount(inverse, minlength=len(distinct)), freq)
    assert len(np.unique(distinct, axis=0)) == len(distinct)  # each row once


def test_a_grouped_matrix_gives_every_figure_of_the_dense_one():
    from stats.coefficients import coefficients
    from stats.kappa import fleiss_matrix_figure
    from stats.matrices import RatingTable, complete_counts
    from stats.per_code import per_code

    rng = np.random.default_rng(6)
    truth = rng.integers(0, 5, size=2000)
    codes = np.where(rng.random((2000, 6)) < 0.7, truth[:, None], rng.integers(0, 8, size=(2000, 6)))
    codes[::50, 2] = -1  # some reports with a rating missing: left out of Fleiss', counted elsewhere
    table = RatingTable(list(range(2000)), [f"c{i}" for i in range(8)], codes.astype(np.int32))
    dense, grouped = complete_counts(table, None, 6), complete_counts(table, None, 6, grouped=True)
    assert (dense.subjects, dense.categories, dense.left_out) == (grouped.subjects, grouped.categories,
                                                                  grouped.left_out)
    one, other = (fleiss_matrix_figure(m, level="t", resamples=300, seed=1) for m in (dense, grouped))
    assert one.value == pytest.approx(other.value, abs=1e-12) and one.n_reports == other.n_reports == 1960
    assert (one.ci_low, one.ci_high) == pytest.approx((other.ci_low, other.ci_high), rel=1e-6)
    assert one.per_category == pytest.approx(other.per_category, abs=1e-12)
    rows, freq = grouped.grouped()
    a, b = coefficients(dense.counts, resamples=300, seed=1), coefficients(rows, freq=freq, resamples=300, seed=1)
    for name in a:
        assert (a[name].value, a[name].ci_low, a[name].ci_high, a[name].n_units) == \
            pytest.approx((b[name].value, b[name].ci_low, b[name].ci_high, b[name].n_units), rel=1e-6)
    for a, b in zip(per_code(dense.counts, dense.categories, seed=1),
                    per_code(rows, grouped.categories, freq=freq, seed=1), strict=True):
        assert (a["category"], a["uses"]) == (b["category"], b["uses"])
        for figure in ("alpha", "kappa"):
            assert a[figure]["n"] == b[figure]["n"] and a[figure]["value"] == pytest.approx(b[figure]["value"])
            assert a[figure]["ci"] == pytest.approx(b[figure]["ci"], rel=1e-6)
