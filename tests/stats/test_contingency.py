"""Subset comparison against textbook tables, and its error rates on simulated data."""
from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from stats.contingency import compare, share_intervals


def test_agrestis_party_identification_by_gender():
    # Agresti, An Introduction to Categorical Data Analysis (2007), Tables 2.5 and 2.10: X² = 30.1 on 2 df,
    # adjusted residuals 4.50, 0.70, −5.32 for women.
    table = np.array([[762, 327, 468], [484, 239, 477]])
    result = compare(table, ["female", "male"], ["Democrat", "Independent", "Republican"])
    assert result.chi2 == pytest.approx(30.07, abs=0.01) and result.df == 2 and result.p < 1e-6
    assert result.residuals[0] == pytest.approx([4.50, 0.70, -5.32], abs=0.01)
    assert result.cramers_v == pytest.approx(np.sqrt(30.07 / table.sum()), abs=1e-3)
    assert result.shares[0].sum() == pytest.approx(1.0) and result.small_expected == 0
    assert (result.share_low[0] <= result.shares[0]).all() and (result.shares[0] <= result.share_high[0]).all()


def test_small_tables_get_fishers_exact_test_or_a_monte_carlo_p_value():
    two = compare(np.array([[3, 1], [1, 3]]), ["a", "b"], ["x", "y"])
    assert two.small_expected == 4 and two.exact_method == "Fisher's exact test"
    assert two.exact_p == pytest.approx(stats.fisher_exact([[3, 1], [1, 3]]).pvalue)
    three = compare(np.array([[4, 1, 0], [0, 2, 5]]), ["a", "b"], ["x", "y", "z"], monte_carlo=2000)
    assert three.exact_method.startswith("Monte Carlo") and 0 < three.exact_p < 0.1


def test_subsets_from_one_distribution_are_rarely_called_different_and_a_planted_difference_is_found():
    shares = [0.4, 0.3, 0.2, 0.1]
    rejections = 0
    for seed in range(200):
        rng = np.random.default_rng(seed)
        table = np.stack([rng.multinomial(300, shares), rng.multinomial(300, shares)])
        rejections += compare(table, ["a", "b"], list("wxyz")).p < 0.05
    assert 3 <= rejections <= 18  # 5 % of 200 is 10; a binomial 99 % range
    rng = np.random.default_rng(1)
    planted = np.stack([rng.multinomial(300, shares), rng.multinomial(300, [0.25, 0.3, 0.2, 0.25])])
    found = compare(planted, ["a", "b"], list("wxyz"))
    assert found.p < 0.001 and abs(found.residuals[1, 3]) > 3


def test_degenerate_tables_say_why():
    assert "two or more" in compare(np.array([[5, 0]]), ["a"], ["x", "y"]).undefined_because


def test_residuals_of_a_table_with_a_zero_cell_are_those_of_that_table():
    # A zero cell: statsmodels' Table shifts every cell by 0.5 unless told not to, which changed the residuals.
    from statsmodels.stats.contingency_tables import Table

    table = np.array([[12, 0, 5], [7, 9, 4]])
    result = compare(table, ["s1", "s2"], ["A.1", "A.2", "A.3"])
    n = table.sum()
    expected = np.outer(table.sum(axis=1), table.sum(axis=0)) / n
    # By hand: (o − e) / √(e (1 − row share)(1 − column share)), cell (0, 1): e = 17·9/37.
    e01 = 17 * 9 / 37
    by_hand = (0 - e01) / np.sqrt(e01 * (1 - 17 / 37) * (1 - 9 / 37))
    assert result.residuals[0, 1] == pytest.approx(by_hand)
    assert result.residuals == pytest.approx(np.asarray(Table(table, shift_zeros=False).standardized_resids))
    assert not np.allclose(result.residuals, Table(table).standardized_resids)  # the old, shifted figures
    # Every other statistic of the same table: chi-square from the same expected counts, V, shares summing to 1.
    assert result.chi2 == pytest.approx(((table - expected) ** 2 / expected).sum())
    assert result.cramers_v == pytest.approx(np.sqrt(result.chi2 / n))
    assert result.shares.sum(axis=1) == pytest.approx([1, 1])
    # A share of zero is not known to be nil: its interval starts at 0 and reaches above it.
    assert result.share_low[0, 1] == 0 and result.share_high[0, 1] > 0
    assert result.small_expected and result.exact_p is not None and 0 < result.exact_p <= 1


@pytest.mark.parametrize("table, subsets, categories", [
    ([[3, 4, 0]], ["only"], ["A", "B", "C"]),  # one row
    ([[3], [5]], ["s1", "s2"], ["A"]),  # one column
    ([[3, 0], [5, 0]], ["s1", "s2"], ["A", "B"]),  # one column once the unused one is dropped
    ([[0, 0], [5, 2]], ["s1", "s2"], ["A", "B"]),  # an empty subset
])
def test_a_table_of_one_row_or_one_column_is_undefined_not_a_number(table, subsets, categories):
    result = compare(np.array(table), subsets, categories)
    assert result.undefined_because and result.chi2 is None and result.residuals is None


def test_shares_have_wilson_intervals_and_a_zero_share_is_not_certain():
    from statsmodels.stats.proportion import proportion_confint

    result = compare(np.array([[0, 15], [6, 9]]), ["a", "b"], ["x", "y"])
    low, high = proportion_confint(0, 15, method="wilson")
    assert (result.share_low[0, 0], result.share_high[0, 0]) == pytest.approx((low, high), abs=1e-12)
    assert high == pytest.approx(0.2039, abs=1e-4)
    assert (result.share_low <= result.shares).all() and (result.shares <= result.share_high).all()


def test_wilson_share_intervals_cover_at_their_nominal_rate():
    # A simulation with known truth: shares of 3 % and 40 % in subsets of 30, 2,000 seeded tables.
    rng = np.random.default_rng(7)
    truth = np.array([0.03, 0.40])
    covered = np.zeros(2)
    for _ in range(2000):
        hits = rng.binomial(30, truth)
        counts = np.stack([hits, 30 - hits], axis=1)  # 2 subsets × 2 labels
        low, high = share_intervals(counts)
        covered += (low[:, 0] <= truth) & (truth <= high[:, 0])
    assert (covered / 2000 >= 0.92).all(), covered / 2000
