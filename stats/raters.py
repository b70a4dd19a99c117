"""Pure: how far each annotator agrees with the others."""
from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass
from itertools import combinations

from . import cohen
from .figures import finite
from .lazy_numpy import np


@dataclass
class RaterAgreement:
    rater: Hashable
    reports: int  # reports this rater shares with at least one other
    agreement: float | None  # share of the other raters' ratings on those reports equal to this rater's
    mean_cohen: float | None  # Cohen's kappa with each other rater, averaged over the pairs with shared reports


def rater_agreement(ratings: Mapping[Hashable, Mapping[Hashable, str]]) -> list[RaterAgreement]:
    """ratings: report → {rater: label}. Raters who share no report with anyone get None."""
    raters = sorted({r for by_rater in ratings.values() for r in by_rater}, key=str)
    categories = sorted({v for by_rater in ratings.values() for v in by_rater.values()})
    code = {c: i for i, c in enumerate(categories)}
    col = {r: i for i, r in enumerate(raters)}
    table = np.full((len(ratings), len(raters)), -1, dtype=np.int64)
    for row, by_rater in enumerate(ratings.values()):
        for rater, value in by_rater.items():
            table[row, col[rater]] = code[value]
    return rater_agreement_table(table, raters, len(categories))


def rater_agreement_table(table: np.ndarray, raters: Sequence[Hashable], k: int) -> list[RaterAgreement]:
    """The same from a reports × raters table of category indexes (-1: no rating).

    Everything comes from one (k + 1) × (k + 1) table per pair of raters, counted over all reports with "no
    rating" as a row and column of its own (one pass each, no report picked out): without that row and column it
    is the pair's agreement table over the reports both rated (Cohen's kappa); its diagonal sum is how often they
    agree there, its sum how many reports they share. A rater's agreement with the others is the sum of their
    agreements over the sum of their shared reports, the same share as counted report by report."""
    n, r = table.shape
    k = max(k, 1)
    # Each rater's codes shifted by one (0: no rating), as a contiguous column; the first of a pair scaled by k + 1.
    shifted = [np.ascontiguousarray(table[:, i], dtype=np.int64) + 1 for i in range(r)]
    given = np.zeros(n, dtype=np.int64)
    for column in shifted:
        given += column > 0
    kappas: dict[int, list[float]] = {i: [] for i in range(r)}
    agree, shared = np.zeros(r, dtype=np.int64), np.zeros(r, dtype=np.int64)
    for i, j in combinations(range(r), 2):
        pair = np.bincount(shifted[i] * (k + 1) + shifted[j], minlength=(k + 1) ** 2).reshape(k + 1, k + 1)
        both = pair[1:, 1:]
        together = int(both.sum())
        if together:
            value = cohen.kappa_and_observed(both.astype(float))[0]
            if value is not None:
                kappas[i].append(value)
                kappas[j].append(value)
        same = int(np.trace(both))
        agree[[i, j]] += same
        shared[[i, j]] += together
    result = []
    for i, rater in enumerate(raters):
        reports = int(np.count_nonzero((shifted[i] > 0) & (given >= 2)))
        agreement = agree[i] / shared[i] if reports else None
        result.append(RaterAgreement(rater=rater, reports=reports,
                                     agreement=finite(agreement) if agreement is not None else None,
                                     mean_cohen=finite(np.mean(kappas[i])) if kappas[i] else None))
    return result


def as_rows(result: Sequence[RaterAgreement]) -> list[dict]:
    return [vars(r) for r in result]
