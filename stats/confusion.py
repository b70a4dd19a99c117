"""Pure: which categories people confuse with which. The coincidence matrix of the labels (Krippendorff's: every
ordered pair of two raters' labels of a report, a report of m labels weighing 1 / (m − 1) per pair), and the
pairs of categories most often given to the same report, each with how many reports, their share, and a
pairwise alpha: how well the raters tell the two apart where they chose one of them, with a bootstrap interval
over reports. Label Studio's "top confusion pairs" count; this corrects for chance."""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from .lazy_numpy import np
from .resampling import bootstrap, column_intervals
from .tree_alpha import coincidence_matrix

RESAMPLES = 200  # one interval per pair, as per code: enough for a dashboard's 95 % percentile interval


@dataclass
class Pair:
    first: str
    second: str
    coincidences: float  # o_ck + o_kc: how often one rater's label met the other's on a report, pairs weighted
    reports: int  # reports given both labels
    share: float  # of the reports with two or more labels
    alpha: float | None  # pairwise alpha between the two, on the reports where two or more labels are one of them
    alpha_n: int  # those reports
    ci: tuple[float | None, float | None] = (None, None)


def _pair_parts(rows: np.ndarray, pairs: list[tuple[int, int]]) -> np.ndarray:
    """Per distinct row, for each pair side by side: the disagreement 2·h_c·h_k / (m − 1), h_c and m, where m
    = h_c + h_k counts the labels that are one of the two (zero where fewer than two are)."""
    first = rows[:, [c for c, _ in pairs]]
    second = rows[:, [k for _, k in pairs]]
    m = first + second
    pairable = m >= 2
    with np.errstate(divide="ignore", invalid="ignore"):
        disagree = np.where(pairable, 2 * first * second / (m - 1), 0.0)
    return np.hstack([disagree, np.where(pairable, first, 0.0), np.where(pairable, m, 0.0)])


def _pair_alpha(sums: np.ndarray) -> np.ndarray:
    """Nominal alpha of each pair per weighting, from weights @ _pair_parts: 1 − o_ck / e_ck, e_ck being
    2·n_c·(n − n_c) / (n − 1)."""
    p = sums.shape[1] // 3
    disagree, n_c, n = sums[:, :p], sums[:, p:2 * p], sums[:, 2 * p:]
    with np.errstate(divide="ignore", invalid="ignore"):
        return 1 - disagree / (2 * n_c * (n - n_c) / (n - 1))


def top_pairs(rows: np.ndarray, freq: np.ndarray, categories: Sequence[str], *, limit: int = 10,
              resamples: int = RESAMPLES, seed: int = 0) -> list[Pair]:
    """The `limit` pairs of categories with the most coincidences (none that never met), most first."""
    rows, freq = np.asarray(rows, dtype=float), np.asarray(freq, dtype=np.int64)
    o = coincidence_matrix(rows, freq)
    k = len(categories)
    met = sorted(((o[c, d] + o[d, c], c, d) for c in range(k) for d in range(c + 1, k) if o[c, d] > 0),
                 key=lambda t: (-t[0], t[1], t[2]))[:limit]
    if not met:
        return []
    pairs = [(c, d) for _, c, d in met]
    pairable = int(freq[rows.sum(axis=1) >= 2].sum())
    parts = _pair_parts(rows, pairs)
    values = _pair_alpha((freq @ parts)[None, :])[0]
    found = []
    for j, (weight, c, d) in enumerate(met):
        both = int(freq[(rows[:, c] > 0) & (rows[:, d] > 0)].sum())
        n = int(freq[rows[:, c] + rows[:, d] >= 2].sum())
        value = float(values[j]) if np.isfinite(values[j]) else None
        found.append(Pair(categories[c], categories[d], float(weight), both, both / pairable if pairable else 0.0,
                          value, n))

    def finish(sums: np.ndarray) -> None:
        for pair, interval in zip(found, column_intervals(_pair_alpha(sums)), strict=True):
            if pair.alpha is not None:
                pair.ci = interval

    bootstrap(freq, parts.astype(np.float32), resamples, seed, finish)
    return found
