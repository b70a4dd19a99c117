"""Pure: label rows → subjects × categories count matrices, and what was left out and why."""
from __future__ import annotations

import re
from collections import Counter
from collections.abc import Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np


def natural_key(label: str) -> list:
    """Sort C.2 before C.10: digit runs compare as numbers."""
    return [(0, int(part), "") if part.isdigit() else (1, 0, part) for part in re.split(r"(\d+)", label)]


@dataclass
class CountMatrix:
    subjects: list[Hashable]
    categories: list[str]
    counts: np.ndarray  # shape (subjects, categories); row sums = raters per subject
    left_out: list[tuple[Hashable, str]] = field(default_factory=list)

    @property
    def n_raters(self) -> int:
        return int(self.counts[0].sum()) if len(self.subjects) else 0


def group_ratings(rows: Iterable[tuple[Hashable, Hashable, str]]) -> dict[Hashable, list[str]]:
    """(subject, rater, label) rows → subject → labels, one per rater."""
    ratings: dict[Hashable, list[str]] = {}
    for subject, _rater, label in rows:
        ratings.setdefault(subject, []).append(label)
    return ratings


def count_matrix(ratings: Mapping[Hashable, Sequence[str]], n_raters: int | None = None) -> CountMatrix:
    """Fleiss needs the same number of raters on every subject: subjects with fewer are left out, with why.

    n_raters defaults to the largest number of ratings any subject has.
    """
    if n_raters is None:
        n_raters = max((len(v) for v in ratings.values()), default=0)
    kept, left_out = [], []
    for subject, labels in ratings.items():
        if len(labels) == n_raters:
            kept.append(subject)
        else:
            left_out.append((subject, f"rated by {len(labels)} of {n_raters} raters"))
    categories = sorted({label for s in kept for label in ratings[s]}, key=natural_key)
    index = {c: i for i, c in enumerate(categories)}
    counts = np.zeros((len(kept), len(categories)), dtype=int)
    for row, subject in enumerate(kept):
        for label, n in Counter(ratings[subject]).items():
            counts[row, index[label]] = n
    return CountMatrix(subjects=kept, categories=categories, counts=counts, left_out=left_out)
