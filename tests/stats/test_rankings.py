"""Ranking statistics against published worked examples."""
from __future__ import annotations

import numpy as np
import pytest

from stats.rankings import borda, kendalls_w, rank_matrix, spearman


def test_kendalls_w_on_the_ten_projects_four_judges_example():
    # Ten projects ranked by four judges: ΣD² = 1048, W = 12·1048 / (4²·10·99) = 0.7939.
    judges = np.array([
        [1, 3, 4, 5, 2, 8, 6, 7, 10, 9],
        [2, 1, 4, 5, 6, 3, 8, 7, 10, 9],
        [3, 2, 1, 5, 7, 4, 6, 8, 9, 10],
        [4, 2, 3, 1, 6, 7, 5, 9, 8, 10],
    ], dtype=float)
    result = kendalls_w(judges)
    assert result.w == pytest.approx(12 * 1048 / (16 * 10 * 99))
    assert result.chi2 == pytest.approx(4 * 9 * result.w) and result.df == 9
    assert result.p < 0.01 and (result.raters, result.items) == (4, 10)


def test_kendalls_w_is_one_for_identical_orders_and_undefined_for_one_rater():
    same = np.array([[1, 2, 3], [1, 2, 3], [1, 2, 3]], dtype=float)
    assert kendalls_w(same).w == pytest.approx(1.0)
    assert kendalls_w(same[:1]).w is None and "two raters" in kendalls_w(same[:1]).undefined_because


def test_spearman_on_the_iq_and_television_example():
    # IQ against hours of television a week, ten people: rho = −29/165.
    iq = [106, 100, 86, 101, 99, 103, 97, 113, 112, 110]
    tv = [7, 27, 2, 50, 28, 29, 20, 12, 6, 17]
    result = spearman({str(i): v for i, v in enumerate(iq)}, {str(i): v for i, v in enumerate(tv)})
    assert result.rho == pytest.approx(-29 / 165)


def test_partial_rankings_share_the_leftover_ranks_and_borda_counts_places():
    orders = [["C.1", "C.2", "C.3"], ["C.2", "C.1", "C.4"]]
    items = ["C.1", "C.2", "C.3", "C.4", "C.5"]
    ranks = rank_matrix(orders, items)
    assert ranks[0].tolist() == [1, 2, 3, 4.5, 4.5] and ranks.sum(axis=1).tolist() == [15, 15]
    assert borda(orders, items) == {"C.1": 7, "C.2": 7, "C.3": 2, "C.4": 2, "C.5": 0}
