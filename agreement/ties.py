"""Pure: majorities and ties among one report's labels."""
from __future__ import annotations

from collections import Counter
from collections.abc import Sequence


def modal_label(labels: Sequence[str]) -> str | None:
    """The label with the most votes, or None when two or more labels share the most (a tie)."""
    ranked = Counter(labels).most_common()
    if not ranked or (len(ranked) > 1 and ranked[0][1] == ranked[1][1]):
        return None
    return ranked[0][0]


def is_controversial(labels: Sequence[str]) -> bool:
    """DESIGN step 10: the largest number of votes is shared by two or more different labels."""
    return bool(labels) and modal_label(labels) is None
