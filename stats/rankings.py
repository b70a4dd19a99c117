"""Pure: aggregating rankings (mean rank, Borda count), Kendall's W with its chi-square test, and Spearman's
correlation between two groups' orders — the interview statistics of the study's Stage II."""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from .figures import finite
from .lazy_numpy import np


def rank_matrix(orders: Sequence[Sequence[str]], items: Sequence[str]) -> np.ndarray:
    """Raters × items ranks (1 = first). A partial order (a top 3) gives every unranked item the mean of the
    ranks left over, the usual treatment of ties, so each row still sums to n(n+1)/2."""
    n = len(items)
    index = {item: i for i, item in enumerate(items)}
    matrix = np.zeros((len(orders), n))
    for row, order in enumerate(orders):
        placed = [index[i] for i in order if i in index]
        rest = [i for i in range(n) if i not in placed]
        for rank, col in enumerate(placed, start=1):
            matrix[row, col] = rank
        if rest:
            matrix[row, rest] = (len(placed) + 1 + n) / 2
    return matrix


def borda(orders: Sequence[Sequence[str]], items: Sequence[str]) -> dict[str, int]:
    """n − 1 points for first place, n − 2 for second, …; unranked items get none."""
    n = len(items)
    points = dict.fromkeys(items, 0)
    for order in orders:
        for place, item in enumerate(o for o in order if o in points):
            points[item] += n - 1 - place
    return points


@dataclass(frozen=True)
class Concordance:
    w: float | None
    chi2: float | None
    df: int
    p: float | None
    raters: int
    items: int
    undefined_because: str = ""


def kendalls_w(ranks: np.ndarray) -> Concordance:
    """Kendall's W with the correction for ties, and the chi-square test m(n − 1)W on n − 1 degrees of freedom."""
    m, n = ranks.shape if ranks.ndim == 2 else (0, 0)
    if m < 2 or n < 2:
        return Concordance(None, None, max(n - 1, 0), None, m, n, "needs two raters and two items")
    sums = ranks.sum(axis=0)
    s = np.square(sums - sums.mean()).sum()
    ties = 0.0
    for row in ranks:
        _, counts = np.unique(row, return_counts=True)
        ties += (counts ** 3 - counts).sum()
    denominator = m * m * (n ** 3 - n) - m * ties
    if denominator == 0:
        return Concordance(None, None, n - 1, None, m, n, "every rater tied every item")
    w = 12 * s / denominator
    chi2 = m * (n - 1) * w
    from scipy import stats  # deferred: heavy, a second to import

    return Concordance(finite(w), finite(chi2), n - 1, finite(stats.chi2.sf(chi2, n - 1)), m, n)


@dataclass(frozen=True)
class Divergence:
    rho: float | None
    p: float | None
    items: int
    largest: list[tuple[str, float]]  # items whose mean ranks differ most between the groups, with the gap


def spearman(first: Mapping[str, float], second: Mapping[str, float], show: int = 3) -> Divergence:
    """Spearman's rank correlation between two groups' mean ranks over the items both ranked."""
    items = [i for i in first if i in second]
    if len(items) < 3:
        return Divergence(None, None, len(items), [])
    a, b = [first[i] for i in items], [second[i] for i in items]
    from scipy import stats  # deferred: heavy, a second to import

    result = stats.spearmanr(a, b)
    gaps = sorted(((i, second[i] - first[i]) for i in items), key=lambda g: -abs(g[1]))[:show]
    return Divergence(finite(result.statistic), finite(result.pvalue), len(items), gaps)
