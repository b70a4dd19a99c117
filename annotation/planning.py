"""Pure: who labels which report. No ORM, so the spreading rules can be tested on plain lists."""
from __future__ import annotations

import hashlib
import random
from collections.abc import Sequence


def spread(issue_ids: Sequence[int], annotator_ids: Sequence[int], overlap: int | None,
           seed: int) -> dict[int, list[int]]:
    """Each annotator's reports, in the study's order.

    overlap None: everyone gets every report. overlap k: each report goes to k different annotators, and
    the seeded shuffle of the reports deals them round-robin, so workloads differ by at most one report and
    each pair of annotators shares about as many reports as any other.
    """
    annotators = list(annotator_ids)
    if overlap is None or overlap >= len(annotators):
        return {a: list(issue_ids) for a in annotators}
    if overlap < 1:
        raise ValueError("overlap must be at least 1")
    order = list(issue_ids)
    random.Random(seed).shuffle(order)
    chosen: dict[int, set[int]] = {a: set() for a in annotators}
    n = len(annotators)
    for index, issue_id in enumerate(order):
        start = (index * overlap) % n
        for step in range(overlap):
            chosen[annotators[(start + step) % n]].add(issue_id)
    # Queues keep the study's own order (not the shuffle), so neighbours in a queue stay neighbours in time.
    return {a: [i for i in issue_ids if i in chosen[a]] for a in annotators}


def order_key(seed: int, issue_id: int) -> float:
    """A report's place in a study's seeded random order: uniform in (0, 1], from the seed and the report alone,
    so that adding reports to a study moves none of the others."""
    digest = hashlib.sha256(f"{seed}:{issue_id}".encode()).digest()
    return (int.from_bytes(digest[:8], "big") + 1) / 2 ** 64


def by_keys(issue_ids: Sequence[int], seed: int, weights: dict[int, float] | None = None) -> list[int]:
    """The reports in the seeded random order, or, with weights, each report's key divided by its weight
    (Ohlsson's sequential Poisson sampling): any first part of the order is a sample in which each report had a
    known chance of being, higher with its weight. A report without a weight has weight 1."""
    weights = weights or {}
    return sorted(issue_ids, key=lambda i: (order_key(seed, i) / weights.get(i, 1.0), i))
