"""Cohen's kappa of two raters, from their category indexes or from their agreement table."""
from __future__ import annotations

from .figures import finite
from .lazy_numpy import np

_BATCH = 50  # bootstrap tables built at once: 50 × k² floats, whatever the number of reports


def table_of(a: np.ndarray, b: np.ndarray, k: int) -> np.ndarray:
    """The k × k agreement table of two raters' category indexes (0 … k−1) over the same reports."""
    return np.bincount(np.asarray(a, dtype=np.int64) * k + b, minlength=k * k).reshape(k, k).astype(float)


def kappa_and_observed(table: np.ndarray) -> tuple[float | None, float | None]:
    """Cohen's kappa of an agreement table and its observed agreement. Kappa is undefined (None) when chance
    agreement is total (both raters gave one and the same category throughout); both are None on no reports."""
    table = np.asarray(table, dtype=float)
    n = table.sum()
    if n == 0:
        return None, None
    p_o = np.trace(table) / n
    p_e = (table.sum(axis=1) @ table.sum(axis=0)) / (n * n)
    return (finite((p_o - p_e) / (1 - p_e)) if p_e < 1 else None), float(p_o)


def kappa(a: np.ndarray, b: np.ndarray, k: int) -> float | None:
    """Cohen's kappa of two raters' category indexes over the same reports."""
    return kappa_and_observed(table_of(a, b, k))[0]


def bootstrap_interval(a: np.ndarray, b: np.ndarray, k: int, resamples: int,
                       seed: int) -> tuple[float | None, float | None]:
    """A 95 % percentile bootstrap interval over reports (resampled with their pair of ratings); resamples whose
    kappa is undefined are left out, and the interval is undefined when all are."""
    n = len(a)
    rng = np.random.default_rng(seed)
    pair = np.asarray(a, dtype=np.int64) * k + b
    values = []
    for start in range(0, resamples, _BATCH):
        size = min(_BATCH, resamples - start)
        draws = pair[rng.integers(0, n, size=(size, n))] + (np.arange(size) * k * k)[:, None]
        tables = np.bincount(draws.ravel(), minlength=size * k * k).reshape(size, k, k) / n
        p_o = np.trace(tables, axis1=1, axis2=2)
        p_e = (tables.sum(axis=2) * tables.sum(axis=1)).sum(axis=1)
        with np.errstate(divide="ignore", invalid="ignore"):
            values.append((p_o - p_e) / (1 - p_e))
    kappas = np.concatenate(values) if values else np.empty(0)
    kappas = kappas[np.isfinite(kappas)]
    if not len(kappas):
        return None, None
    low, high = np.percentile(kappas, [2.5, 97.5])
    return float(low), float(high)
