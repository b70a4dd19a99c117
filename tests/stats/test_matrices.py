"""stats.matrices: distinct count rows as numpy finds them, faster."""
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
    assert np.array_equal(rows, expected_rows) and np.array_equal(freq, expected_freq)
    assert rows.dtype == counts.dtype
