"""Pure: Fleiss' kappa (statsmodels) on count matrices, with the figures it used."""
from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass, field

from statsmodels.stats.inter_rater import fleiss_kappa

from .matrices import count_matrix


@dataclass
class FleissResult:
    kappa: float | None
    n_subjects: int
    n_raters: int
    categories: list[str]
    left_out: list[tuple[Hashable, str]] = field(default_factory=list)
    undefined_because: str = ""


def fleiss(ratings: Mapping[Hashable, Sequence[str]], n_raters: int | None = None) -> FleissResult:
    """Fleiss' kappa (1971) over subjects rated by n_raters each; the rest are reported as left out."""
    matrix = count_matrix(ratings, n_raters)
    result = FleissResult(
        kappa=None,
        n_subjects=len(matrix.subjects),
        n_raters=matrix.n_raters,
        categories=matrix.categories,
        left_out=matrix.left_out,
    )
    # Kappa is 0/0 in these cases; say so rather than show nan.
    if result.n_subjects == 0:
        result.undefined_because = "no report has a complete set of ratings"
    elif result.n_raters < 2:
        result.undefined_because = "fewer than two raters"
    elif len(matrix.categories) < 2:
        result.undefined_because = "every rater gave the same single category, so chance agreement is 1"
    else:
        result.kappa = float(fleiss_kappa(matrix.counts, method="fleiss"))
    return result
