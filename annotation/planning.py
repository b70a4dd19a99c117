"""Pure: who labels which report. No ORM, so the spreading rules can be tested on plain lists."""
from __future__ import annotations

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
