"""The planner's stopping rule against studies of known kappa: stop the first time the bootstrap interval of
Fleiss' kappa, looked at after every 50 reports, is narrower than the width wanted; the interval at the stop
covers the population's kappa about as often as the interval of a study of fixed size does."""
from __future__ import annotations

import numpy as np
import pytest

from stats.kappa import bootstrap_kappa
from stats.planner import LOOK_EVERY, stop_now

WIDTH = 0.1
STUDIES = 300
PREVALENCE = (0.05, 0.3, 0.55, 0.1)  # question, requirement, bug, not relevant, roughly the study's
MOST = 2000


def _reports(rng, n: int, right: float, raters: int) -> np.ndarray:
    """Reports × categories counts: each rater gives the report's true category with probability `right`, else
    one of the others at random."""
    truth = rng.choice(len(PREVALENCE), size=n, p=PREVALENCE)
    counts = np.zeros((n, len(PREVALENCE)), dtype=np.int64)
    for _ in range(raters):
        other = (truth + rng.integers(1, len(PREVALENCE), size=n)) % len(PREVALENCE)
        counts[np.arange(n), np.where(rng.random(n) < right, truth, other)] += 1
    return counts


def _fleiss(counts: np.ndarray) -> float:
    n, m = len(counts), counts[0].sum()
    p = counts.sum(axis=0) / (n * m)
    expected = float((p ** 2).sum())
    observed = float(((counts * (counts - 1)).sum(axis=1) / (m * (m - 1))).mean())
    return (observed - expected) / (1 - expected)


# 600 seeded studies: CI's, not the quick suite's.
@pytest.mark.slow
@pytest.mark.parametrize(("right", "raters"), [(0.8, 3), (0.7, 4)])
def test_stopping_when_the_interval_is_narrow_enough_keeps_its_coverage(right, raters):
    rng = np.random.default_rng(int(right * 10) + raters)
    truth = _fleiss(_reports(rng, 1_000_000, right, raters))  # the population's kappa, to ±0.002
    studies = [_reports(rng, MOST, right, raters) for _ in range(STUDIES)]
    at_stop, stops = 0, []
    for seed, counts in enumerate(studies):
        n = LOOK_EVERY
        while True:
            low, high = bootstrap_kappa(counts[:n], resamples=1000, seed=seed)
            if stop_now(high - low, WIDTH, n) or n >= MOST:
                break
            n += LOOK_EVERY
        stops.append(n)
        at_stop += low <= truth <= high
    fixed_n = int(np.median(stops))
    fixed = sum(low <= truth <= high for low, high in
                (bootstrap_kappa(counts[:fixed_n], resamples=1000, seed=s) for s, counts in enumerate(studies)))
    print(f"\nright {right}, {raters} raters, kappa {truth:.3f}: covered at the stop {at_stop / STUDIES:.3f} "
          f"(median stop {fixed_n}), at a fixed {fixed_n} reports {fixed / STUDIES:.3f}")
    assert max(stops) < MOST  # every study reached the width
    assert at_stop / STUDIES >= 0.91 and at_stop / STUDIES >= fixed / STUDIES - 0.04


def test_the_rule_needs_a_known_width():
    assert not stop_now(None, 0.1, 100) and stop_now(0.1, 0.1, 100) and not stop_now(0.11, 0.1, 100)


def test_a_degenerate_interval_is_never_enough():
    """Two reports on which everyone agreed give every resample the same kappa: a width of 0, which is no
    evidence of precision. Nor is any width before the rule's first look."""
    from stats.planner import plan

    counts = np.array([[3, 0], [0, 3]])
    result = plan(counts, 0.1)
    assert result["now"] == 0.0 and result["enough_reports"] is None
    assert not stop_now(result["now"], 0.1, result["reports"])
    assert not stop_now(0.05, 0.1, LOOK_EVERY - 1) and stop_now(0.05, 0.1, LOOK_EVERY)
