"""Pure: do two or more subsets of reports share one distribution of labels? The chi-square test of
independence, Cramér's V, adjusted standardised residuals (which cells drive a difference), each label's
share per subset with a Wilson interval, and exact or Monte Carlo p-values where expected counts are small."""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from .figures import finite
from .lazy_numpy import np
from .proportions import wilson

SMALL_EXPECTED = 5


@dataclass
class Comparison:
    subsets: list[str]
    categories: list[str]
    counts: np.ndarray  # subsets × categories
    chi2: float | None = None
    df: int = 0
    p: float | None = None
    cramers_v: float | None = None
    residuals: np.ndarray | None = None  # adjusted standardised residuals, same shape as counts
    shares: np.ndarray | None = None  # each category's share of its subset
    share_low: np.ndarray | None = None
    share_high: np.ndarray | None = None
    small_expected: int = 0  # cells whose expected count is under 5
    exact_p: float | None = None
    exact_method: str = ""
    dropped: list[str] = field(default_factory=list)  # categories no subset used
    undefined_because: str = ""


def compare(counts: np.ndarray, subsets: Sequence[str], categories: Sequence[str], *, seed: int = 0,
            monte_carlo: int = 10000) -> Comparison:
    counts = np.asarray(counts, dtype=np.int64)
    used = counts.sum(axis=0) > 0
    result = Comparison(list(subsets), [c for c, u in zip(categories, used, strict=True) if u], counts[:, used],
                        dropped=[c for c, u in zip(categories, used, strict=True) if not u])
    table = result.counts
    if table.shape[0] < 2 or table.shape[1] < 2 or (table.sum(axis=1) == 0).any():
        result.undefined_because = "needs two or more non-empty subsets and two or more labels"
        return result
    from scipy import stats  # deferred: heavy, a second to import
    chi2, p, df, expected = stats.chi2_contingency(table, correction=False)
    n = table.sum()
    result.chi2, result.p, result.df = finite(chi2), finite(p), int(df)
    result.cramers_v = finite(np.sqrt(chi2 / (n * (min(table.shape) - 1))))
    result.residuals = adjusted_residuals(table, expected)
    result.shares = table / table.sum(axis=1, keepdims=True)
    result.share_low, result.share_high = share_intervals(table)
    result.small_expected = int((expected < SMALL_EXPECTED).sum())
    if result.small_expected:
        if table.shape == (2, 2):
            result.exact_p, result.exact_method = finite(stats.fisher_exact(table).pvalue), "Fisher's exact test"
        else:
            result.exact_p = _monte_carlo(table, chi2, seed, monte_carlo)
            result.exact_method = f"Monte Carlo permutation test ({monte_carlo:,} tables with the same margins)"
    return result


def adjusted_residuals(table: np.ndarray, expected: np.ndarray) -> np.ndarray:
    """Haberman's adjusted standardised residuals, (o − e) / √(e (1 − row/n)(1 − column/n)), of the table the
    chi-square was computed on. (statsmodels' Table adds 0.5 to every cell of a table with a zero cell, so its
    residuals would describe another table.)"""
    n = table.sum()
    rows = table.sum(axis=1, keepdims=True) / n
    cols = table.sum(axis=0, keepdims=True) / n
    return (table - expected) / np.sqrt(expected * (1 - rows) * (1 - cols))


def share_intervals(table: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Wilson's 95 % interval of each share (count of its row's total). A percentile bootstrap of a multinomial
    gives 0 of 15 the interval [0, 0], as if the share were known to be nil; Wilson's gives [0, 0.20]."""
    totals = np.broadcast_to(table.sum(axis=1, keepdims=True), table.shape)
    return wilson(table, totals)


def _monte_carlo(table: np.ndarray, observed: float, seed: int, samples: int) -> float:
    """P-value of the chi-square statistic over random tables with the same margins (labels shuffled across
    subsets), as R's chisq.test(simulate.p.value=TRUE) does."""
    rng = np.random.default_rng(seed)
    rows = np.repeat(np.arange(table.shape[0]), table.sum(axis=1))
    cols = np.repeat(np.arange(table.shape[1]), table.sum(axis=0))
    expected = np.outer(table.sum(axis=1), table.sum(axis=0)) / table.sum()
    hits = 0
    for _ in range(samples):
        shuffled = rng.permutation(cols)
        sim = np.zeros(table.shape)
        np.add.at(sim, (rows, shuffled), 1)
        if ((sim - expected) ** 2 / expected).sum() >= observed - 1e-9:
            hits += 1
    return (hits + 1) / (samples + 1)
