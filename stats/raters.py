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
    """The same from a reports × raters table of category indexes (-1: no rating)."""
    table = table.astype(np.int64)
    present = table >= 0
    k = max(k, 1)
    kappas: dict[int, list[float]] = {i: [] for i in range(len(raters))}
    for i, j in combinations(range(len(raters)), 2):
        both = present[:, i] & present[:, j]
        if both.any():
            value = cohen.kappa(table[both, i], table[both, j], k)
            if value is not None:
                kappas[i].append(value)
                kappas[j].append(value)
    others = present.sum(axis=1) - 1
    result = []
    for i, rater in enumerate(raters):
        shared = present[:, i] & (others > 0)
        same = ((table == table[:, [i]]) & present).sum(axis=1) - 1
        agreement = same[shared].sum() / others[shared].sum() if shared.any() else None
        result.append(RaterAgreement(rater=rater, reports=int(shared.sum()),
                                     agreement=finite(agreement) if agreement is not None else None,
                                     mean_cohen=finite(np.mean(kappas[i])) if kappas[i] else None))
    return result


def as_rows(result: Sequence[RaterAgreement]) -> list[dict]:
    return [vars(r) for r in result]
