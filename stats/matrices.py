"""Pure: label rows → subjects × categories count matrices, and what was left out and why."""
from __future__ import annotations

from collections.abc import Callable, Hashable, Mapping, Sequence
from dataclasses import dataclass, field
from itertools import compress

from .lazy_numpy import np
from .resampling import remembered


@dataclass
class CountMatrix:
    subjects: list[Hashable]
    categories: list[str]
    counts: np.ndarray  # shape (subjects, categories); row sums = raters per subject
    left_out: list[tuple[Hashable, str]] = field(default_factory=list)
    # With it, `counts` holds each distinct row once and `freq` how many subjects have it: every figure of a
    # count matrix is a sum over subjects, the same over distinct rows weighted by their frequency.
    freq: np.ndarray | None = None

    @property
    def n_raters(self) -> int:
        return int(self.counts[0].sum()) if len(self.subjects) else 0

    def grouped(self) -> tuple[np.ndarray, np.ndarray]:
        """The distinct rows and how many subjects have each."""
        return (self.counts, self.freq) if self.freq is not None else distinct_rows(self.counts)


@dataclass
class RatingTable:
    """Subjects × raters category indexes, -1 where a rater gave no rating: the one shape every statistic
    reads, so that counting is numpy work however many reports there are."""

    subjects: list[Hashable]
    categories: list[str]
    codes: np.ndarray  # (subjects, raters), int32


def rating_table(ratings: Mapping[Hashable, Sequence[str | None]],
                 order: Callable[[str], object] | None = None) -> RatingTable:
    """Categories sorted by `order` (a sort key: the codebook's order, given by the caller that knows it), else
    as strings. The order places a figure's per-category rows and never changes its value."""
    categories = sorted({v for values in ratings.values() for v in values if v is not None}, key=order)
    index = {c: i for i, c in enumerate(categories)}
    width = max((len(v) for v in ratings.values()), default=0)
    codes = np.full((len(ratings), width), -1, dtype=np.int32)
    for row, values in enumerate(ratings.values()):
        for col, value in enumerate(values):
            if value is not None:
                codes[row, col] = index[value]
    return RatingTable(list(ratings), categories, codes)


def counts_of(table: RatingTable, rows: np.ndarray | None = None) -> np.ndarray:
    """Subjects × categories counts of the given rows (a boolean mask; all rows by default)."""
    codes = table.codes if rows is None else table.codes[rows]
    n, k = codes.shape[0], len(table.categories)
    if n == 0 or k == 0:
        return np.zeros((n, k), dtype=np.int64)
    valid = codes >= 0
    flat = (np.arange(n, dtype=np.int64)[:, None] * k + codes)[valid]
    return np.bincount(flat, minlength=n * k).reshape(n, k)


def grouped_counts(table: RatingTable, rows: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The distinct count rows of the given subjects (a boolean mask; all by default) in `distinct_rows`' order,
    how many subjects have each, and each subject's distinct row: found from the subjects' codes without a
    subjects × categories matrix (a million reports × 75 categories is 600 MB)."""
    codes = table.codes if rows is None else table.codes[rows]
    ordered = np.sort(codes, axis=1)  # a subject's codes as a multiset: −1 (no rating) first
    key = _packed(ordered, len(table.categories))
    if key is not None:  # the packed keys sort as the multisets do
        _, first, inverse, freq = np.unique(key, return_index=True, return_inverse=True, return_counts=True)
    else:
        _, first, inverse, freq = np.unique(ordered, axis=0, return_index=True, return_inverse=True,
                                            return_counts=True)
        order = np.lexsort(ordered[first].T[::-1])
        rank = np.empty_like(order)
        rank[order] = np.arange(len(order))
        first, freq, inverse = first[order], freq[order], rank[inverse.reshape(-1)]
    distinct = counts_of(RatingTable(list(range(len(first))), table.categories, ordered[first]))
    return distinct, freq, inverse.reshape(-1)


def _packed(ordered: np.ndarray, k: int) -> np.ndarray | None:
    """Rows of sorted codes (−1 … k − 1) as one integer each, in base k + 1, whose order is the rows'
    lexicographic order; None where they do not fit in 62 bits."""
    if (k + 1) ** ordered.shape[1] >= 2**62:
        return None
    key = np.zeros(len(ordered), dtype=np.int64)
    for column in ordered.T:
        key = key * (k + 1) + (column + 1)
    return key


def _multiset_order(rows: np.ndarray) -> np.ndarray:
    """The order of distinct count rows by the multiset of codes each stands for (sorted codes, −1 for a rating
    missing, compared lexicographically): the order `grouped_counts` finds them in."""
    u, k = rows.shape
    sums = rows.sum(axis=1, dtype=np.int64)
    width = int(sums.max()) if u else 0
    owners, columns = np.nonzero(rows)
    times = rows[owners, columns].astype(np.int64)
    codes, owner = np.repeat(columns, times), np.repeat(owners, times)
    starts = np.cumsum(sums) - sums
    ordered = np.full((u, width), -1, dtype=np.int64)
    ordered[owner, width - sums[owner] + np.arange(len(codes)) - starts[owner]] = codes  # right-aligned
    key = _packed(ordered, k)
    return np.argsort(key, kind="stable") if key is not None else np.lexsort(ordered.T[::-1])


def same_category_pairs(rows: np.ndarray) -> np.ndarray:
    """Per row of counts, Σ_j n_j (n_j − 1): the ordered pairs of its ratings that agree. Summed as Σ n_j² − Σ n_j,
    with no temporary the size of the rows (a million reports' distinct rows are ~190,000 × 76)."""
    return np.einsum("ij,ij->i", rows, rows) - rows.sum(axis=1)


def complete_counts(table: RatingTable, rows: np.ndarray | None = None,
                    n_raters: int | None = None, *, grouped: bool | tuple = False) -> CountMatrix:
    """Fleiss needs the same number of raters on every subject: subjects with fewer are left out, with why.
    Categories are those the kept subjects were given. n_raters defaults to the most any subject has. With
    `grouped`, the matrix holds the distinct rows and their frequencies (CountMatrix.freq); `grouped` may be what
    `grouped_counts(table, rows)` gave, which is not found again."""
    mask = np.ones(len(table.subjects), dtype=bool) if rows is None else rows
    given = (table.codes >= 0).sum(axis=1)
    if n_raters is None:
        n_raters = int(given[mask].max()) if mask.any() else 0
    kept = mask & (given == n_raters)
    left_out = [(table.subjects[i], f"rated by {given[i]} of {n_raters} raters")
                for i in np.flatnonzero(mask & ~kept)]
    subjects = list(compress(table.subjects, kept.tolist()))
    freq = None
    if grouped:
        counts, freq, _ = grouped if isinstance(grouped, tuple) else grouped_counts(table, mask)
        # The subjects every rater rated are those of the rows with n_raters ratings.
        complete = counts.sum(axis=1) == n_raters
        if not complete.all():  # copies only where some are left out (a million reports' rows are ~150 MB)
            counts, freq = counts[complete], freq[complete]
    else:
        counts = counts_of(table, kept)
    used = counts.sum(axis=0) > 0
    return CountMatrix(subjects=subjects, categories=[c for c, u in zip(table.categories, used, strict=True) if u],
                       counts=counts if used.all() else counts[:, used], left_out=left_out, freq=freq)


def count_matrix(ratings: Mapping[Hashable, Sequence[str]], n_raters: int | None = None,
                 order: Callable[[str], object] | None = None) -> CountMatrix:
    return complete_counts(rating_table(ratings, order), n_raters=n_raters)


def distinct_rows(counts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The rows of `np.unique(counts, axis=0, return_counts=True)` and how often each occurs, twenty times faster
    for count matrices: numpy compares rows as raw bytes of their dtype (8 per float), so rows of small whole
    counts are compared as one byte per category instead. Count rows come in the order of the codes they stand
    for, as `grouped_counts` finds them from the codes, so that a figure resampled from either is the same."""
    counts = np.asarray(counts)
    if counts.ndim != 2 or not counts.size:
        return np.unique(counts, axis=0, return_counts=True)
    if np.issubdtype(counts.dtype, np.integer):
        # Whole numbers: one pass over the matrix for its range instead of an element-wise comparison.
        if counts.min() < 0 or counts.max() > 255:
            return np.unique(counts, axis=0, return_counts=True)
        small = counts.astype(np.uint8)
    else:
        small = counts.astype(np.uint8)
        if not np.array_equal(small, counts):  # negative, fractional or over 255: the general path
            return np.unique(counts, axis=0, return_counts=True)
    packed = np.ascontiguousarray(small).view(np.dtype((np.void, counts.shape[1]))).ravel()
    # A type's kappa, coefficients and per-code figures ask for the same rows' distinct rows: found once per
    # computation (stats.resampling.shared).
    first, freq = remembered(f"distinct rows of {counts.shape}", packed.tobytes(), lambda: _grouped(small, packed))
    return counts[first], freq


def _grouped(small: np.ndarray, packed: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Each distinct row's first index and frequency, in the order of the codes they stand for."""
    first, freq = np.unique(packed, return_index=True, return_counts=True)[1:]
    order = _multiset_order(small[first])
    return first[order], freq[order]
