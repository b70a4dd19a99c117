"""Pure: seeded samples, two-reviewer verdicts with a tie-breaker, and rates with Wilson intervals.

Keyword precision on a sample of its matches; precision of "relevant" and the
false-negative rate of "not relevant" on stratified samples; every figure with its n and a 95 % interval, and a
confidence sequence beside it that may be read after every vote.
"""
from __future__ import annotations

import math
import random
from collections.abc import Hashable, Iterable, Sequence
from dataclasses import dataclass

from stats import cohen
from stats.confseq import Stop, first_clear, sequence
from stats.lazy_numpy import np
from stats.proportions import Rate, rate


def sample_size(population: int, size: int | None = None, fraction: float | None = None) -> int:
    """How many to draw: a fixed size (capped by the population) or a fraction, rounded up."""
    if size is not None:
        return min(size, population)
    if fraction is None:
        raise ValueError("give a size or a fraction")
    return min(population, math.ceil(fraction * population))


def seeded_sample(items: Iterable[Hashable], seed: int, size: int | None = None,
                  fraction: float | None = None) -> list:
    """The same items for the same population and seed, whatever order the population came in."""
    population = sorted(set(items))
    return random.Random(seed).sample(population, sample_size(len(population), size, fraction))


def final_verdict(first: bool | None, second: bool | None, tiebreak: bool | None = None) -> bool | None:
    """Two independent reviewers decide when they agree; otherwise the third reviewer's vote does.

    None while a needed vote is missing.
    """
    if first is None or second is None:
        return None
    if first == second:
        return first
    return tiebreak


def needs_tiebreak(first: bool | None, second: bool | None) -> bool:
    return first is not None and second is not None and first != second


def precision(verdicts: Sequence[bool | None], confidence: float = 0.95) -> Rate:
    """Share of decided items judged relevant (a keyword's precision, or that of the "relevant" stratum)."""
    decided = [v for v in verdicts if v is not None]
    return rate(sum(decided), len(decided), confidence)


def false_negative_rate(verdicts: Sequence[bool | None], confidence: float = 0.95) -> Rate:
    """Share of decided items of the "not relevant" stratum that reviewers found relevant after all."""
    return precision(verdicts, confidence)


@dataclass(frozen=True)
class PairAgreement:
    agreed: Rate  # share of items both judged the same
    kappa: float | None  # Cohen's kappa of the two judges


def pair_agreement(pairs: Sequence[tuple[bool, bool]], confidence: float = 0.95) -> PairAgreement:
    """Agreement of two judges on the same binary question, item by item."""
    table = np.zeros((2, 2))
    for first, second in pairs:
        table[int(first)][int(second)] += 1
    agreed = rate(int(table[0][0] + table[1][1]), len(pairs), confidence)
    expected_one_category = (table.sum(axis=0) == len(pairs)).any() and (table.sum(axis=1) == len(pairs)).any()
    if not pairs or expected_one_category:
        kappa = None
    else:
        kappa = cohen.kappa_and_observed(table)[0]
    return PairAgreement(agreed=agreed, kappa=kappa)


# How a keyword's sample decides, in words, for every place that reports one.
KEYWORD_RULE = ("the keyword is accepted the first time the 95 % confidence sequence of its precision (betting, "
                "for sampling without replacement from the keyword's matches) has its lower end at or above the "
                "threshold, and rejected the first time its upper end falls below it, the final verdicts read in "
                "the order the sample was drawn; if neither happens by the sample's end, an admin decides on the "
                "whole sample")


@dataclass(frozen=True)
class Watch:
    """The confidence sequence of a sample's rate as its verdicts come in."""
    n: int  # verdicts read: the sample's drawn order, up to the first item without a final verdict
    low: float | None
    high: float | None
    stop: Stop | None  # the first time it lay wholly on one side of the threshold


def watch(verdicts_in_drawn_order: Sequence[bool | None], population: int, threshold: float | None = None,
          alpha: float = 0.05) -> Watch:
    """The (1 − α) confidence sequence of the share judged relevant in a population of `population`, read in
    the order the sample was drawn. It stops at the first item still undecided: the drawn order is random, so
    each prefix is a sample without replacement, whereas the items decided first may be the easy ones."""
    read = []
    for verdict in verdicts_in_drawn_order:
        if verdict is None:
            break
        read.append(float(verdict))
    if not read:
        return Watch(0, None, None, None)
    low, high = sequence(read, max(population, len(read)), alpha)
    stop = first_clear(low, high, threshold) if threshold is not None else None
    return Watch(len(read), float(low[-1]), float(high[-1]), stop)
