"""Pure: Fleiss' kappa on count matrices (statsmodels' `fleiss_kappa`, computed over the distinct count rows, each
weighted by how many reports have it: the same sums in fewer terms), with observed and expected agreement,
Fleiss' (1971) per-category kappas and a seeded, vectorised bootstrap interval over reports."""
from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass, field

from .figures import Figure, finite
from .lazy_numpy import np
from .matrices import CountMatrix, count_matrix, distinct_rows, same_category_pairs
from .resampling import bootstrap, shared


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
    p_i = same_category_pairs(counts) / (m * (m - 1))
    p_j = counts.sum(axis=0) / counts.sum()
    return p_i, p_j


def per_category_kappa(counts: np.ndarray, freq: np.ndarray | None = None) -> np.ndarray:
    """Fleiss (1971), eq. for kappa_j: agreement on category j against chance, NaN where p_j is 0 or 1. With
    `freq`, `counts` holds distinct rows and freq how many subjects have each."""
    freq = np.ones(len(counts)) if freq is None else freq
    n, m = freq.sum(), counts[0].sum()
    p_j = (freq @ counts) / (n * m)
    # Σ_i f_i n_ij (m − n_ij), as m Σ f n − Σ f n²: no temporary the size of the counts.
    disagreement = m * (freq @ counts) - np.einsum("i,ij,ij->j", freq, counts, counts)
    with np.errstate(divide="ignore", invalid="ignore"):
        return 1 - disagreement / (n * m * (m - 1) * p_j * (1 - p_j))


def bootstrap_kappa(counts: np.ndarray, resamples: int = 1000, seed: int = 0,
                    confidence: float = 0.95) -> tuple[float | None, float | None]:
    """Percentile interval of Fleiss' kappa over reports resampled with replacement, computed at once."""
    found: list = [(None, None)]
    if counts.shape[0] >= 2:
        with shared():
            kappa_interval(*distinct_rows(counts), resamples, seed, lambda *interval: found.__setitem__(0, interval),
                           confidence)
    return found[0]


def kappa_interval(rows: np.ndarray, freq: np.ndarray, resamples: int, seed: int, done,
                   confidence: float = 0.95) -> None:
    """Calls done(low, high) with the percentile interval of Fleiss' kappa over the reports (`rows`, distinct,
    each had by `freq` reports) resampled with replacement: at once, or when a shared block ends
    (stats.resampling.bootstrap).

    Exact and vectorised: a resample is how many times each distinct count row is taken, and
    P̄ = W·P_u / N and p_j = W·rows / (N·m) for every resample at once.
    """
    n, m = int(freq.sum()), rows[0].sum()
    p_u, _ = agreement_parts(rows)
    parts = np.empty((len(rows), 1 + rows.shape[1]))
    parts[:, 0], parts[:, 1:] = p_u, rows

    def finish(sums: np.ndarray) -> None:
        p_bar = sums[:, 0] / n
        p_e = np.square(sums[:, 1:] / (n * m)).sum(axis=1)
        with np.errstate(divide="ignore", invalid="ignore"):
            values = (p_bar - p_e) / (1 - p_e)
        values = values[np.isfinite(values)]
        if len(values):
            tail = (1 - confidence) / 2 * 100
            low, high = np.percentile(values, [tail, 100 - tail])
            done(float(low), float(high))

    bootstrap(freq, parts, resamples, seed, finish)


def fleiss_figure(ratings: Mapping[Hashable, Sequence[str]], *, level: str, type: str = "",
                  n_raters: int | None = None, resamples: int = 1000, seed: int = 0) -> Figure:
    """Fleiss' kappa with everything a reader needs to judge it."""
    return fleiss_matrix_figure(count_matrix(ratings, n_raters), level=level, type=type, resamples=resamples,
                                seed=seed)


def fleiss_matrix_figure(matrix: CountMatrix, *, level: str, type: str = "", resamples: int = 1000,
                         seed: int = 0) -> Figure:
    figure = Figure(method="Fleiss' kappa (1971); 95 % bootstrap interval over reports",
                    level=level, type=type, n_reports=len(matrix.subjects), n_raters=matrix.n_raters,
                    categories=matrix.categories, left_out=matrix.left_out)
    figure.undefined_because = _undefined(figure.n_reports, figure.n_raters, len(matrix.categories))
    if figure.undefined_because:
        return figure
    rows, freq = matrix.grouped()
    n, m = freq.sum(), rows[0].sum()
    p_u, _ = agreement_parts(rows)
    p_j = (freq @ rows) / (n * m)
    observed, expected = (freq @ p_u) / n, np.square(p_j).sum()
    figure.observed, figure.expected = finite(observed), finite(expected)
    figure.value = finite((observed - expected) / (1 - expected))
    if len(matrix.subjects) >= 2:
        kappa_interval(rows, freq, resamples, seed, figure.set_interval)
    figure.per_category = {c: finite(k) for c, k in zip(matrix.categories, per_category_kappa(rows, freq),
                                                         strict=True)}
    return figure
