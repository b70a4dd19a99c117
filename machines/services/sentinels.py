"""Which reports keep the full human panel under a replacement decision: its sentinels."""
from __future__ import annotations

from annotation.models import Study

from ..measures import sentinels
from ..models import ReplacementDecision


def sentinel_reports(decision: ReplacementDecision, reference_types: dict[int, str]) -> set[int]:
    return sentinels_of(decision.rater.study, decision.sentinel_share, reference_types, decision.level,
                        decision.type_code, decision.sentinel_seed)


def sentinels_of(study: Study, share: float, reference_types: dict[int, str], level: str, type_code: str,
                 seed: int | None = None) -> set[int]:
    """The seeded share of the study's reports people keep labeling, those of `type_code` below type level."""
    chosen = sentinels(list(study.issues.values_list("pk", flat=True)), share, study.seed if seed is None else seed)
    if level != "type":
        chosen = {r for r in chosen if reference_types.get(r) == type_code}
    return chosen
