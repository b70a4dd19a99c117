"""Pure: Krippendorff's alpha with a distance between categories, and the codebook's tree distance.

A label is a path in the codebook (type, theme, sub-theme). Nominal alpha counts every disagreement alike; with
the tree distance, splitting a theme into sibling sub-themes costs less than confusing two themes of a type,
which costs less than confusing two types. Alpha with a distance δ² (Krippendorff 2011):

    alpha = 1 − (n − 1) Σ_ck o_ck δ²_ck / Σ_ck n_c n_k δ²_ck

where o is the coincidence matrix of the values in units with two or more of them, n_c its row sums and n their
total. With δ² 0 on the diagonal and 1 elsewhere it is nominal alpha.
"""
from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass

from .figures import finite
from .lazy_numpy import np
from .resampling import bootstrap, column_intervals

Path = tuple[str, ...]  # ("C",), ("C", "C.1") or ("C", "C.1", "C.1.i"); ("NR",) for not relevant


@dataclass(frozen=True)
class TreeDistance:
    """δ² between two labels by where their paths part: nothing (0), at the sub-theme (`sibling`), at the theme
    (`same_type`), at the type (1). A label that stops above the other (a theme without a sub-theme against one
    of its sub-themes) parts where the shorter one ends."""
    sibling: float = 1 / 3
    same_type: float = 2 / 3

    def __post_init__(self) -> None:
        if not 0 <= self.sibling <= self.same_type <= 1:
            raise ValueError("the distances grow up the tree: 0 ≤ sibling ≤ same type ≤ 1")

    def __call__(self, a: Path, b: Path) -> float:
        if a == b:
            return 0.0
        if a[0] != b[0]:
            return 1.0
        if len(a) < 2 or len(b) < 2 or a[1] != b[1]:
            return self.same_type
        return self.sibling


def coincidences(ratings: Mapping[Hashable, Sequence[Hashable | None]]) -> tuple[list, np.ndarray]:
    """The values seen and their coincidence matrix: Σ over units with m ≥ 2 values of the ordered pairs of
    different raters' values, each unit weighted 1 / (m − 1). None is a missing rating."""
    values = sorted({v for given in ratings.values() for v in given if v is not None}, key=repr)
    index = {v: i for i, v in enumerate(values)}
    o = np.zeros((len(values), len(values)))
    for given in ratings.values():
        counts = np.zeros(len(values))
        for v in given:
            if v is not None:
                counts[index[v]] += 1
        m = counts.sum()
        if m >= 2:
            o += (np.outer(counts, counts) - np.diag(counts)) / (m - 1)
    return values, o


def coincidence_matrix(rows: np.ndarray, freq: np.ndarray) -> np.ndarray:
    """K × K coincidences from distinct count rows (reports × categories) and how many reports have each; the
    rows with fewer than two labels pair nothing."""
    rows = np.asarray(rows, dtype=float)
    m = rows.sum(axis=1)
    pairable = m >= 2
    weighed = rows[pairable] * (np.asarray(freq, dtype=float)[pairable] / (m[pairable] - 1))[:, None]
    return weighed.T @ rows[pairable] - np.diag(weighed.sum(axis=0))


def alpha_from_coincidences(o: np.ndarray, distance: np.ndarray) -> float | None:
    """Alpha from a coincidence matrix and δ² between its values; None when no disagreement is to be expected."""
    n_c = o.sum(axis=1)
    n = float(n_c.sum())
    expected = float(n_c @ distance @ n_c)
    if n < 2 or expected == 0:
        return None
    return finite(1 - (n - 1) * float((o * distance).sum()) / expected)


def distance_alpha(ratings: Mapping[Hashable, Sequence[Hashable | None]], distance) -> float | None:
    """Alpha of `ratings` (unit → each rater's value or None) with `distance(a, b)` as δ² between two values."""
    values, o = coincidences(ratings)
    matrix = np.array([[distance(a, b) for b in values] for a in values]) if values else np.zeros((0, 0))
    return alpha_from_coincidences(o, matrix)


def tree_alpha(ratings: Mapping[Hashable, Sequence[Path | None]], tree: TreeDistance = TreeDistance()
               ) -> float | None:
    """Alpha over codebook paths with the tree distance."""
    return distance_alpha(ratings, tree)


def tree_alpha_counts(rows: np.ndarray, freq: np.ndarray, paths: Sequence[Path],
                      tree: TreeDistance = TreeDistance()) -> float | None:
    """`tree_alpha` from the distinct rows of a reports × paths count matrix and how many reports have each
    (stats.matrices.grouped_counts): reports with the same counts add the same coincidences."""
    distance = np.array([[tree(a, b) for b in paths] for a in paths], dtype=float).reshape(len(paths), len(paths))
    return alpha_from_coincidences(coincidence_matrix(rows, freq), distance)


def tree_alpha_interval(rows: np.ndarray, freq: np.ndarray, paths: Sequence[Path], done,
                        tree: TreeDistance = TreeDistance(), *, resamples: int, seed: int,
                        confidence: float = 0.95) -> None:
    """Calls done(low, high) with the percentile interval of `tree_alpha_counts` over the reports resampled with
    replacement: at once, or when a shared block ends (stats.resampling.bootstrap).

    Every sum alpha needs is a sum over reports, so a resample's is its weights times each distinct row's part:
    the observed disagreement hᵀδh / (m − 1) of a row of counts h and m labels, and h itself, whose total n_c
    gives the expected disagreement Σ n_c n_k δ_ck."""
    rows = np.asarray(rows, dtype=float)
    k = len(paths)
    if not len(rows) or k < 2:
        return
    distance = np.array([[tree(a, b) for b in paths] for a in paths], dtype=float)
    m = rows.sum(axis=1)
    pairable = m >= 2
    parts = np.zeros((len(rows), 1 + k))
    parts[pairable, 0] = np.einsum("rc,ck,rk->r", rows[pairable], distance, rows[pairable]) / (m[pairable] - 1)
    parts[pairable, 1:] = rows[pairable]

    def finish(sums: np.ndarray) -> None:
        sums = sums.astype(np.float64)
        n_c = sums[:, 1:]
        n = n_c.sum(axis=1)
        expected = np.einsum("bc,ck,bk->b", n_c, distance, n_c)
        with np.errstate(divide="ignore", invalid="ignore"):
            values = np.where((n >= 2) & (expected > 0), 1 - (n - 1) * sums[:, 0] / expected, np.nan)
        done(*column_intervals(values[:, None], confidence)[0])

    bootstrap(np.asarray(freq, dtype=np.int64), parts, resamples, seed, finish)
