"""Each rater's agreement with the others and mean Cohen's kappa, from one count table per pair, are what the
definitions give counted report by report (the rule written out plainly below)."""
from itertools import combinations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from stats import cohen
from stats.raters import rater_agreement_table


def _plainly(table: np.ndarray, k: int) -> list[tuple]:
    """Per rater: reports shared with another rater; the share of the others' ratings on those reports equal to
    theirs; the mean of Cohen's kappa with each other rater over the reports both rated (where defined)."""
    present = table >= 0
    kappas = {i: [] for i in range(table.shape[1])}
    for i, j in combinations(range(table.shape[1]), 2):
        both = present[:, i] & present[:, j]
        if both.any():
            value = cohen.kappa(table[both, i], table[both, j], max(k, 1))
            if value is not None:
                kappas[i].append(value)
                kappas[j].append(value)
    others = present.sum(axis=1) - 1
    out = []
    for i in range(table.shape[1]):
        shared = present[:, i] & (others > 0)
        same = ((table == table[:, [i]]) & present).sum(axis=1) - 1
        agreement = same[shared].sum() / others[shared].sum() if shared.any() else None
        out.append((int(shared.sum()), None if agreement is None else float(agreement),
                    float(np.mean(kappas[i])) if kappas[i] else None))
    return out


@st.composite
def tables(draw):
    raters, k = draw(st.integers(1, 6)), draw(st.integers(1, 5))
    reports = draw(st.integers(0, 30))
    cells = draw(st.lists(st.integers(-1, k - 1), min_size=reports * raters, max_size=reports * raters))
    return np.array(cells, dtype=np.int32).reshape(reports, raters), k


@settings(max_examples=300, deadline=None)
@given(tables())
def test_the_pairs_tables_give_what_the_reports_give(case):
    table, k = case
    found = [(r.reports, r.agreement, r.mean_cohen) for r in
             rater_agreement_table(table, [f"r{i}" for i in range(table.shape[1])], k)]
    assert found == _plainly(table, k)


def test_a_rater_with_no_one_to_compare_has_no_figures():
    table = np.array([[0, -1], [1, -1]], dtype=np.int32)
    first, second = rater_agreement_table(table, ["a", "b"], 2)
    assert (first.reports, first.agreement, first.mean_cohen) == (0, None, None)
    assert (second.reports, second.agreement, second.mean_cohen) == (0, None, None)


@pytest.mark.parametrize("k", [1, 3])
def test_every_rating_the_same_leaves_kappa_undefined(k):
    table = np.zeros((4, 3), dtype=np.int32)
    for r in rater_agreement_table(table, ["a", "b", "c"], k):
        assert (r.reports, r.agreement, r.mean_cohen) == (4, 1.0, None)
