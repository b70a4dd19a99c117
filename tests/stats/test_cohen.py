"""One Cohen's kappa for every caller: the same value as statsmodels' and scikit-learn's, undefined where chance
agreement is total."""
from __future__ import annotations

import numpy as np
import pytest
from sklearn.metrics import cohen_kappa_score
from statsmodels.stats.inter_rater import cohens_kappa

from stats import cohen


@pytest.mark.parametrize("seed", range(20))
def test_kappa_is_statsmodels_and_scikit_learns(seed):
    rng = np.random.default_rng(seed)
    k = int(rng.integers(2, 7))
    n = int(rng.integers(5, 300))
    a = rng.integers(0, k, n)
    b = np.where(rng.random(n) < 0.6, a, rng.integers(0, k, n))
    table = cohen.table_of(a, b, k)
    value, observed = cohen.kappa_and_observed(table)
    assert value == pytest.approx(cohens_kappa(table).kappa, abs=1e-12)
    assert value == pytest.approx(cohen_kappa_score(a, b), abs=1e-12)
    assert observed == pytest.approx((a == b).mean(), abs=1e-15)
    assert cohen.kappa(a, b, k) == value


def test_undefined_when_both_give_one_category_and_on_no_reports():
    assert cohen.kappa(np.zeros(5, dtype=int), np.zeros(5, dtype=int), 2) is None
    assert cohen.kappa_and_observed(np.zeros((2, 2))) == (None, None)


def test_bootstrap_interval_is_seeded_and_holds_the_value():
    rng = np.random.default_rng(1)
    a = rng.integers(0, 3, 200)
    b = np.where(rng.random(200) < 0.7, a, rng.integers(0, 3, 200))
    low, high = cohen.bootstrap_interval(a, b, 3, 500, seed=4)
    assert (low, high) == cohen.bootstrap_interval(a, b, 3, 500, seed=4)
    assert low < cohen.kappa(a, b, 3) < high
    assert cohen.bootstrap_interval(np.zeros(4, dtype=int), np.zeros(4, dtype=int), 2, 50, seed=0) == (None, None)
