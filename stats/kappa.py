"""Pure: Fleiss' kappa (statsmodels) on count matrices, with observed and expected agreement, Fleiss' (1971)
per-category kappas and a seeded, vectorised bootstrap interval over reports."""
from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass, field

from .figures import Figure, finite
from .lazy_numpy import np
from .matrices import CountMatrix, count_matrix, distinct_rows
from .resampling import prefetch, resample_weights


@dataclass
class FleissResult:
    kappa: float | None
    n_subjects: int
    n_raters: int
    categories: list[str]
    left_out: list[tuple[Hashable, str]] = field(default_factory=list)
    undefined_because: str = ""


def _undefined(n_subjects: int, n_raters: int, n_categories: int) -> str:
    # Kappa is 0/0 in these cases; say so rather than show nan.
    if n_subjects == 0:
        return "no report has a complete set of ratings"
    if n_raters < 2:
        return "fewer than two raters"
    if n_categories < 2:
        return "every rater gave the same single category, so chance agreement is 1"
    return ""


def fleiss(ratings: Mapping[Hashable, Sequence[str]], n_raters: int | None = None) -> FleissResult:
    """Fleiss' kappa (1971) over subjects rated by n_raters each; the rest are reported as left out."""
    figure = fleiss_figure(ratings, level="", n_raters=n_raters, resamples=0)
    return FleissResult(kappa=figure.value, n_subjects=figure.n_reports, n_raters=figure.n_raters,
                        categories=figure.categories, left_out=figure.left_out,
                        undefined_because=figure.undefined_because)


def agreement_parts(counts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per subject: P_i, the share of agreeing rater pairs; per category: p_j, its share of all ratings."""
    m = counts.sum(axis=1)
    p_i = (np.square(counts).sum(axis=1) - m) / (m * (m - 1))
    p_j = counts.sum(axis=0) / counts.sum()
    return p_i, p_j


def per_category_kappa(counts: np.ndarray) -> np.ndarray:
    """Fleiss (1971), eq. for kappa_j: agreement on category j against chance, NaN where p_j is 0 or 1."""
    n, m = counts.shape[0], counts[0].sum()
    p_j = counts.sum(axis=0) / (n * m)
    disagreement = (counts * (m - counts)).sum(axis=0)
    with np.errstate(divide="ignore", invalid="ignore"):
        return 1 - disagreement / (n * m * (m - 1) * p_j * (1 - p_j))


def bootstrap_kappa(counts: np.ndarray, resamples: int = 1000, seed: int = 0,
                    confidence: float = 0.95) -> tuple[float | None, float | None]:
    """Percentile interval of Fleiss' kappa over reports resampled with replacement.

    Vectorised and exact: a resample is how many times each distinct count row is taken (stats.resampling),
    and P̄ = W·P_u / N and p_j = W·rows / (N·m) for all resamples of a batch at once.
    """
    n = counts.shape[0]
    if n < 2 or resamples < 1:
        return None, None
    m = counts[0].sum()
    rows, freq = distinct_rows(counts)
    p_u, _ = agreement_parts(rows)
    # Single precision for the products (BLAS sgemm); sums of ≤ 10⁶ terms keep ~6 digits, ample for an interval.
    # P_u and the rows side by side: one product reads a batch of weights once, where two read it twice.
    parts = np.empty((len(rows), 1 + rows.shape[1]), dtype=np.float32)
    parts[:, 0], parts[:, 1:] = p_u, rows
    kappas = []
    for weights in resample_weights(freq, resamples, seed):
        sums = weights @ parts
        p_bar = sums[:, 0] / n
        p_e = np.square(sums[:, 1:] / (n * m)).sum(axis=1)
        with np.errstate(divide="ignore", invalid="ignore"):
            kappas.append((p_bar - p_e) / (1 - p_e))
    values = np.concatenate(kappas)
    values = values[np.isfinite(values)]
    if not len(values):
        return None, None
    tail = (1 - confidence) / 2 * 100
    low, high = np.percentile(values, [tail, 100 - tail])
    return float(low), float(high)


def prefetch_interval(matrix: CountMatrix, resamples: int, seed: int) -> None:
    """Within stats.resampling.shared(), start drawing the resamples fleiss_matrix_figure will take for this
    matrix's interval (none where its kappa is undefined)."""
    if resamples and not _undefined(len(matrix.subjects), matrix.n_raters, len(matrix.categories)) \
            and len(matrix.subjects) > 1:
        prefetch(distinct_rows(matrix.counts)[1], resamples, seed)


def fleiss_figure(ratings: Mapping[Hashable, Sequence[str]], *, level: str, type: str = "",
                  n_raters: int | None = None, resamples: int = 1000, seed: int = 0) -> Figure:
    """Fleiss' kappa with everything a reader needs to judge it."""
    return fleiss_matrix_figure(count_matrix(ratings, n_raters), level=level, type=type, resamples=resamples,
                                seed=seed)


def fleiss_matrix_figure(matrix: CountMatrix, *, level: str, type: str = "", resamples: int = 1000,
                         seed: int = 0) -> Figure:
    figure = Figure(method="Fleiss' kappa (1971), statsmodels; 95 % bootstrap interval over reports",
                    level=level, type=type, n_reports=len(matrix.subjects), n_raters=matrix.n_raters,
                    categories=matrix.categories, left_out=matrix.left_out)
    figure.undefined_because = _undefined(figure.n_reports, figure.n_raters, len(matrix.categories))
    if figure.undefined_because:
        return figure
    counts = matrix.counts
    p_i, p_j = agreement_parts(counts)
    from statsmodels.stats.inter_rater import fleiss_kappa  # deferred: heavy, a second to import

    figure.observed = finite(p_i.mean())
    figure.expected = finite(np.square(p_j).sum())
    figure.value = finite(fleiss_kappa(counts, method="fleiss"))
    figure.ci_low, figure.ci_high = bootstrap_kappa(counts, resamples, seed)
    figure.per_category = {c: finite(k) for c, k in zip(matrix.categories, per_category_kappa(counts), strict=True)}
    return figure
