"""Pure: has the codebook stopped growing? The change log against the labeling: new categories and revisions per
100 labeled reports, and Guest, Namey and Chen's (2020) stopping rule — after a base of b reports, a run of r more
reports that brings at most 5 % new information (new categories, relative to the categories known at the end of
the base) means saturation."""
from __future__ import annotations

import bisect
import datetime as dt
from collections.abc import Sequence
from dataclasses import dataclass, field

BIN = 100
BASE = 200
RUN = 100
THRESHOLD = 0.05
METHOD = ("Guest, Namey and Chen (2020): base size {base} reports, run length {run} reports, new information "
          "threshold {threshold:.0%} of the categories known at the end of the base")


@dataclass(frozen=True)
class Change:
    made_at: dt.datetime
    kind: str
    new_categories: int  # categories this change brought in (an addition 1, a split its parts)


@dataclass
class Saturation:
    labeled: int
    bins: list[dict] = field(default_factory=list)  # {"from", "to", "new_categories", "revisions"}
    runs: list[dict] = field(default_factory=list)  # {"from", "to", "new_categories", "ratio", "saturated"}
    base_categories: int | None = None
    saturated_at: int | None = None  # reports labeled when the first run met the rule
    still_growing: bool | None = None  # the latest complete run: above the threshold?
    method: str = ""
    undefined_because: str = ""


def _position(times: Sequence[dt.datetime], when: dt.datetime) -> int:
    """How many reports had been labeled when a change was made."""
    return bisect.bisect_right(times, when)


def _bins(labeled: int, at: list[tuple[int, Change]], bin_size: int) -> list[dict]:
    """The changes per bin of reports labeled; one made before any label counts in the first."""
    bins = []
    for start in range(0, max(labeled, 1), bin_size):
        end = min(start + bin_size, labeled)
        inside = [c for n, c in at if start < n <= end or (start == 0 and n == 0)]
        bins.append({"from": start + 1 if labeled else 0, "to": end, "revisions": len(inside),
                     "new_categories": sum(c.new_categories for c in inside)})
    return bins


def _runs(labeled: int, at: list[tuple[int, Change]], base_categories: int, base: int, run: int,
          threshold: float) -> list[dict]:
    """Each complete run after the base: the new categories it brought over those known at the end of the base."""
    runs = []
    for start in range(base, labeled - run + 1, run):
        new = sum(c.new_categories for n, c in at if start < n <= start + run)
        ratio = new / base_categories if base_categories else None
        runs.append({"from": start + 1, "to": start + run, "new_categories": new, "ratio": ratio,
                     "saturated": ratio is not None and ratio <= threshold})
    return runs


def saturation(first_labeled: Sequence[dt.datetime], changes: Sequence[Change], categories_at_start: int, *,
               bin_size: int = BIN, base: int = BASE, run: int = RUN, threshold: float = THRESHOLD) -> Saturation:
    """`first_labeled`: when each report got its first label, sorted; `changes`: the change log; the codebook's
    categories before the first change. A change made before any label counts in the first bin."""
    times = sorted(first_labeled)
    result = Saturation(labeled=len(times), method=METHOD.format(base=base, run=run, threshold=threshold))
    at = [(_position(times, c.made_at), c) for c in changes]
    result.bins = _bins(len(times), at, bin_size)
    if len(times) < base + run:
        result.undefined_because = (f"{len(times)} reports are labeled; the rule needs a base of {base} and a run "
                                    f"of {run}")
        return result
    result.base_categories = categories_at_start + sum(c.new_categories for n, c in at if n <= base)
    result.runs = _runs(len(times), at, result.base_categories, base, run, threshold)
    result.saturated_at = next((r["to"] for r in result.runs if r["saturated"]), None)
    result.still_growing = not result.runs[-1]["saturated"]
    return result
