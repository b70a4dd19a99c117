"""Does the summary anchor the label? In a study that runs the experiment, each (annotator, report) pair is
dealt into one of two arms — the summary shown first, or only the original — by a hash of the study's seed and
the two ids. Seeded and stateless: the page and the save compute the same arm without storing a plan, and a
report is in different arms for different annotators, so the arms compare like with like."""
from __future__ import annotations

import hashlib


def shows_summary(study, user_id: int, issue_id: int) -> bool:
    if not study.summary_experiment:
        return True
    digest = hashlib.sha256(f"summary-arm:{study.seed}:{user_id}:{issue_id}".encode()).digest()
    return digest[0] % 2 == 0


def arm_of(study, user_id: int, issue_id: int) -> bool | None:
    """What a label records: whether the summary was on the page, or None when the study runs no experiment."""
    return shows_summary(study, user_id, issue_id) if study.summary_experiment else None
