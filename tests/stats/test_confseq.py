"""Confidence sequences for a share drawn without replacement: the reference implementation's values, and the
conclusion drawn from them, looking after every vote, against populations of known share."""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from stats.confseq import first_clear, sequence
from stats.proportions import wilson

DATA = Path(__file__).parent / "data"
RUNS = 2000
LOOKS = 100  # the fixed design's sample: the screeners look after every one of its votes
POPULATION = 500
SHARES = (0.5, 0.7, 0.78, 0.8, 0.82, 0.9, 0.95)
THRESHOLD = 0.8


@pytest.mark.parametrize("case", json.loads((DATA / "confseq_reference.json").read_text())["cases"])
def test_the_sequence_is_the_reference_implementations(case):
    x = np.array([int(c) for c in case["x"]], dtype=float)
    low, high = sequence(x, case["population"])
    assert np.abs(low - np.array(case["low"])).max() < 1e-9
    assert np.abs(high - np.array(case["high"])).max() < 1e-9


def test_what_the_draws_prove_bounds_the_sequence():
    # All 40 of 40 drawn are ones: the share is 1, whatever the bets say.
    low, high = sequence(np.ones(40), 40)
    assert low[-1] == 1.0 and high[-1] == 1.0
    assert sequence([], 10)[0].size == 0
    with pytest.raises(ValueError, match="11 draws without replacement from 10"):
        sequence(np.ones(11), 10)


def test_once_every_item_is_read_the_sequence_is_the_share_exactly():
    """Every item of the population read: the share is known, and both ends are it, whatever the order. (The
    upper end was 1 − zeros/N, which can fall one rounding step below ones/N, and 299 items' shares lie between
    the grid's points: either left the sequence empty at its end.)"""
    rng = np.random.default_rng(7)
    for population in (299, 300):
        for ones in range(population + 1):
            x = rng.permutation(np.r_[np.ones(ones), np.zeros(population - ones)])
            low, high = sequence(x, population)
            assert low[-1] == high[-1] == ones / population, (population, ones, low[-1], high[-1])


def _peeking_wilson(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    t = np.arange(1, len(x) + 1)
    return wilson(np.cumsum(x), t)


def simulate(runs: int = RUNS, seed: int = 2020) -> dict:
    """Populations of known share, drawn without replacement and looked at after every vote: how often the
    interval ever misses the share, and how often the first clearing of the threshold decides wrongly, for the
    sequence and for Wilson's fixed-n interval read the same way."""
    rng = np.random.default_rng(seed)
    missed = {"sequence": 0, "wilson": 0}
    wrong = {"sequence": 0, "wilson": 0}
    stops = []
    for run in range(runs):
        share = SHARES[run % len(SHARES)]
        ones = round(share * POPULATION)
        x = rng.permutation(np.r_[np.ones(ones), np.zeros(POPULATION - ones)])[:LOOKS]
        truth = ones / POPULATION
        for name, (low, high) in (("sequence", sequence(x, POPULATION)), ("wilson", _peeking_wilson(x))):
            missed[name] += bool(((low > truth) | (high < truth)).any())
            stop = first_clear(low, high, THRESHOLD)
            wrong[name] += stop is not None and stop.meets != (truth >= THRESHOLD)
            if name == "sequence":
                stops.append(stop.n if stop else None)
    return {"missed": {k: v / runs for k, v in missed.items()}, "wrong": {k: v / runs for k, v in wrong.items()},
            "stops": stops}


def test_looking_after_every_vote_the_sequence_misses_at_most_5_percent_and_wilson_more():
    found = simulate()
    # Printed for the README: the sequence's miss rate beside Wilson's read after every vote.
    print(f"\nmissed ever: sequence {found['missed']['sequence']:.4f}, Wilson peeking {found['missed']['wilson']:.4f}; "
          f"wrong first decision at {THRESHOLD}: sequence {found['wrong']['sequence']:.4f}, "
          f"Wilson peeking {found['wrong']['wilson']:.4f}")
    assert found["missed"]["sequence"] <= 0.05
    assert found["wrong"]["sequence"] <= 0.05
    # The fixed-n interval read after every vote misses far more often than its 5 %.
    assert found["missed"]["wilson"] > 0.10 and found["wrong"]["wilson"] > found["wrong"]["sequence"]


def test_far_from_the_threshold_it_stops_early():
    stops = simulate(runs=700, seed=7)["stops"]
    by_share = {share: [s for i, s in enumerate(stops) if SHARES[i % len(SHARES)] == share] for share in SHARES}
    # 0.5 against 0.8: rejected within a few dozen votes, every time.
    assert all(s is not None for s in by_share[0.5]) and np.median(by_share[0.5]) <= 40
    # At the threshold itself it rarely stops at all within the sample, rightly.
    assert sum(s is not None for s in by_share[0.8]) / len(by_share[0.8]) <= 0.05


# 17 s of simulation: CI's (`make test FULL=1`), so that the quick suite stays within its five minutes.
@pytest.mark.slow
def test_with_replacement_it_misses_at_most_5_percent_too():
    """Per type, the reports are drawn from reports like these: the sequence without a population, looked at
    after every report of 200, against Bernoulli draws of known share."""
    rng = np.random.default_rng(5)
    missed = 0
    for run in range(RUNS):
        share = SHARES[run % len(SHARES)]
        low, high = sequence((rng.random(200) < share).astype(float))
        missed += bool(((low > share) | (high < share)).any())
    print(f"\nwith replacement, missed ever: {missed / RUNS:.4f}")
    assert missed / RUNS <= 0.05


def test_a_long_sample_computed_a_piece_at_a_time_is_the_same(monkeypatch):
    import stats.confseq

    rng = np.random.default_rng(9)
    x = (rng.random(300) < 0.7).astype(float)
    whole = sequence(x, 1000)
    monkeypatch.setattr(stats.confseq, "CHUNK", 7)
    pieces = sequence(x, 1000)
    assert np.array_equal(whole[0], pieces[0]) and np.array_equal(whole[1], pieces[1])
