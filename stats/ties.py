"""Pure: majorities and ties among one report's labels."""
from __future__ import annotations

from collections.abc import Hashable, Sequence


def modal_label(labels: Sequence[str]) -> str | None:
    """The label with the most votes, or None when two or more labels share the most (a tie)."""
    # A plain dict beats Counter.most_common here: this runs for every report at every level.
    counts: dict = {}
    for label in labels:
        counts[label] = counts.get(label, 0) + 1
    if not counts:
        return None
    top = max(counts.values())
    winners = [label for label, n in counts.items() if n == top]
    return winners[0] if len(winners) == 1 else None


def is_controversial(labels: Sequence[str]) -> bool:
    """The largest number of votes is shared by two or more different labels."""
    return bool(labels) and modal_label(labels) is None


def controversial_levels(labels: Sequence[tuple[str, str | None, str | None]]) -> list[str]:
    """The levels at which one report's (type, theme, sub-theme) labels tie.

    The type is compared over every label; the theme only among labels of the winning type, and the
    sub-theme only among labels of the winning theme, since a tie further down means nothing when the
    level above is tied already.
    """
    types = [label[0] for label in labels]
    if is_controversial(types):
        return ["type"]
    winning_type = modal_label(types)
    themes = [label[1] for label in labels if label[0] == winning_type and label[1]]
    if is_controversial(themes):
        return ["theme"]
    winning_theme = modal_label(themes)
    subs = [label[2] for label in labels if label[1] == winning_theme and winning_theme and label[2]]
    return ["sub_theme"] if is_controversial(subs) else []


def final_label(labels: Sequence[tuple[Hashable, Hashable | None, Hashable | None]]
                ) -> tuple[tuple[Hashable, Hashable | None, Hashable | None], int] | None:
    """The label the votes settle on, level by level, and how many raters gave it; None when a level ties.

    The type is the plurality of all labels; the theme the plurality among labels of that type; the sub-theme
    the plurality among labels of that theme that name one. Support counts the raters whose label matches the
    final one at its most specific level.
    """
    if not labels or controversial_levels(labels):
        return None
    type_ = modal_label([lab[0] for lab in labels])
    theme = _plurality([lab[1] for lab in labels if lab[0] == type_])
    sub = None if theme is None else _plurality([lab[2] for lab in labels if lab[1] == theme])
    # The most specific level settled, and the raters whose label matches there.
    at, final = (2, sub) if sub is not None else (1, theme) if theme is not None else (0, type_)
    return (type_, theme, sub), sum(1 for lab in labels if lab[at] == final)


def _plurality(values: list) -> Hashable | None:
    """The plurality of the values given (None ones left out); None when none is given."""
    named = [v for v in values if v is not None]
    return modal_label(named) if named else None
