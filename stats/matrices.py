"""Pure: label rows → subjects × categories count matrices, and what was left out and why."""
from __future__ import annotations

from collections.abc import Callable, Hashable, Mapping, Sequence
from dataclasses import dataclass, field

from .lazy_numpy import np
from .resampling import remembered


@dataclass
class CountMatrix:
    subjects: list[Hashable]
    categories: list[str]
    counts: np.ndarray  # shape (subjects, categories); row sums = raters per subject
    left_out: list[tuple[Hashable, str]] = field(default_factory=list)

    @property
    def n_raters(self) -> int:
        return int(self.counts[0].sum()) if len(self.subjects) else 0


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


def complete_counts(table: RatingTable, rows: np.ndarray | None = None,
                    n_raters: int | None = None) -> CountMatrix:
    """Fleiss needs the same number of raters on every subject: subjects with fewer are left out, with why.
    Categories are those the kept subjects were given. n_raters defaults to the most any subject has."""
    mask = np.ones(len(table.subjects), dtype=bool) if rows is None else rows
    given = (table.codes >= 0).sum(axis=1)
    if n_raters is None:
        n_raters = int(given[mask].max()) if mask.any() else 0
    kept = mask & (given == n_raters)
    left_out = [(table.subjects[i], f"rated by {given[i]} of {n_raters} raters")
                for i in np.flatnonzero(mask & ~kept)]
    counts = counts_of(table, kept)
    used = counts.sum(axis=0) > 0
    return CountMatrix(subjects=[table.subjects[i] for i in np.flatnonzero(kept)],
                       categories=[c for c, u in zip(table.categories, used, strict=True) if u],
                       counts=counts[:, used], left_out=left_out)


def count_matrix(ratings: Mapping[Hashable, Sequence[str]], n_raters: int | None = None,
                 order: Callable[[str], object] | None = None) -> CountMatrix:
    return complete_counts(rating_table(ratings, order), n_raters=n_raters)


def distinct_rows(counts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """`np.unique(counts, axis=0, return_counts=True)`, the same rows in the same order, twenty times faster for
    count matrices: numpy compares rows as raw bytes of their dtype (8 per float), so rows of small whole
    counts are compared as one byte per category instead, whose byte order is their numeric order."""
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
    first, freq = remembered(f"distinct rows of {counts.shape}", packed.tobytes(),
                             lambda: np.unique(packed, return_index=True, return_counts=True)[1:])
    return counts[first], freq
