"""Sampling and screening figures, against published values and the study's own votes."""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from ingest.screening import final_verdict, needs_tiebreak, precision, sample_size, seeded_sample
from stats.proportions import rate

DATA = Path(__file__).parent / "data" / "paper"


@pytest.mark.parametrize(
    ("x", "n", "low", "high"),
    # Newcombe (1998), "Two-sided confidence intervals for the single proportion", Table I, method 3 (score).
    [(81, 263, 0.2553, 0.3662), (15, 148, 0.0624, 0.1605), (0, 20, 0.0, 0.1611), (1, 29, 0.0061, 0.1718)],
)
def test_wilson_interval_matches_newcombe(x, n, low, high):
    result = rate(x, n)
    assert (round(result.low, 4), round(result.high, 4)) == (low, high)


def test_an_empty_sample_has_no_rate():
    assert rate(0, 0).value is None and rate(0, 0).low is None


def test_sampling_is_reproducible_from_its_seed_and_ignores_input_order():
    population = list(range(1000))
    first = seeded_sample(population, seed=416, size=100)
    assert first == seeded_sample(reversed(population), seed=416, size=100)
    assert first != seeded_sample(population, seed=417, size=100)
    assert len(set(first)) == 100


def test_sample_sizes_by_fraction_round_up_and_never_exceed_the_population():
    assert sample_size(1000, fraction=0.05) == 50 and sample_size(7, fraction=0.1) == 1
    assert sample_size(30, size=100) == 30 and sample_size(0, fraction=0.1) == 0


def test_two_reviewers_decide_when_they_agree_and_the_third_breaks_ties():
    assert final_verdict(True, True) is True and final_verdict(False, False, tiebreak=True) is False
    assert needs_tiebreak(True, False) and final_verdict(True, False) is None
    assert final_verdict(True, False, tiebreak=False) is False
    assert final_verdict(True, None) is None


def test_the_studys_keyword_validation_votes_give_its_published_majorities():
    votes = json.loads((DATA / "keywordvalidation.json").read_text())
    by_framework: dict[str, list[bool | None]] = {}
    for url, (v1, v2, v3) in votes.items():
        framework = "mindspore" if "gitee.com" in url else url.split("/")[4]
        by_framework.setdefault(framework, []).append(final_verdict(bool(v1), bool(v2), bool(v3)))
    figures = {name: precision(verdicts) for name, verdicts in by_framework.items()}
    # As counted from the file (data/01 SOURCE.md): majority-yes 148, 130 and 124 of 300 each.
    assert {k: (r.successes, r.n) for k, r in figures.items()} == {
        "mindspore": (148, 300), "pytorch": (130, 300), "tensorflow": (124, 300)}
    assert precision([v for vs in by_framework.values() for v in vs]).successes == 402
    assert figures["pytorch"].low < 130 / 300 < figures["pytorch"].high


def test_on_the_studys_keyword_votes_the_sequence_stops_long_before_the_fixed_design():
    """Each framework's 300 majority verdicts as a population, drawn in 200 seeded orders and looked at after
    every vote with Concord's default threshold of 0.8: the sequence rejects well before the fixed design's 100."""
    from stats.confseq import first_clear, sequence

    votes = json.loads((DATA / "keywordvalidation.json").read_text())
    by_framework: dict[str, list[bool]] = {}
    for url, (v1, v2, v3) in votes.items():
        framework = "mindspore" if "gitee.com" in url else url.split("/")[4]
        by_framework.setdefault(framework, []).append(final_verdict(bool(v1), bool(v2), bool(v3)))
    rng = np.random.default_rng(0)
    medians = {}
    for framework, verdicts in by_framework.items():
        stops = []
        for _ in range(200):
            drawn = rng.permutation(np.array(verdicts, dtype=float))[:100]
            stop = first_clear(*sequence(drawn, len(verdicts)), 0.8)
            assert stop is not None and not stop.meets  # every order rejects: the precision is under 0.5
            stops.append(stop.n)
        medians[framework] = float(np.median(stops))
    print(f"\nmedian stopping n at 0.8: {medians}")
    assert all(n <= 100 for n in medians.values())
    assert medians == {"mindspore": 18.0, "pytorch": 12.0, "tensorflow": 11.0}
