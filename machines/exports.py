"""A study's machine raters as plain JSON, for `manage.py raters`, study.json and the corpus export: what
reproduces each, its runs, its figures at every level and type, the decisions and their sentinel watch; and,
for the corpus export, each report's machine labels of record."""
from __future__ import annotations

from functools import cache

from annotation.models import Study
from stats.alt_test import EPSILONS

from .models import LlmCall, ReplacementDecision
from .selectors import describe, full_report, latest_run, panel, raters_of, run_labels
from .services.decisions import watch


def _decision(decision: ReplacementDecision, the_panel) -> dict:
    watched = watch(decision, the_panel)
    return {"rater": decision.rater.name, "level": decision.level, "type": decision.type_code,
            "epsilon": decision.epsilon, "reason": decision.reason, "decided_by": decision.decided_by.username,
            "decided_at": decision.decided_at.isoformat(), "sentinel_share": decision.sentinel_share,
            "sentinel_seed": decision.sentinel_seed, "sentinels": watched.sentinels, "below": watched.below,
            "sentinel_figures": watched.figures and {"cohen_plurality": watched.figures["cohen_plurality"],
                                                     "alt_test": watched.figures["alt_test"]},
            "withdrawn_at": decision.withdrawn_at and decision.withdrawn_at.isoformat(),
            "withdrawn_reason": decision.withdrawn_reason, "figures_then": decision.figures,
            "seat": _seat(decision.seat) if decision.seat_id else None,
            "carried_from": decision.figures.get("carried_from")}


def _seat(seat) -> dict:
    """Whose place the applied decision took, on how many reports, and whether it still stands there."""
    return {"in_seat_of": seat.annotator.username, "round": seat.round.number, "level": seat.level,
            "reports": seat.labels.count(), "taken_at": seat.taken_at.isoformat(),
            "given_back_at": seat.given_back_at and seat.given_back_at.isoformat(), "returned": seat.returned}


def study_machines(study: Study, *, epsilon: float = EPSILONS["skilled"], figures: bool = True,
                   calls: bool = False) -> dict:
    # The people's labels as a panel only where a rater's figures or a decision's watch need it: a study with
    # no machine rater exports without holding every label of its round (1.2 GB at a million reports × 7).
    the_panel = cache(lambda: panel(study))
    raters = []
    for rater in raters_of(study):
        entry = describe(rater)
        if figures:
            entry["figures"] = full_report(rater, epsilon=epsilon, the_panel=the_panel())
        entry["calls"] = call_log(rater) if calls else LlmCall.objects.filter(rater=rater).count()
        raters.append(entry)
    decisions = ReplacementDecision.objects.filter(rater__study=study).select_related("rater", "decided_by")
    return {"epsilon": epsilon, "raters": raters,
            "decisions": [_decision(d, the_panel()) for d in decisions.order_by("pk")]}


def labels_by_report(study: Study) -> dict[int, dict[str, str]]:
    """Report → {rater name: its most specific code of record ("" when unparseable)} for the corpus export."""
    return LabelsByReport(study)(None)


class LabelsByReport:
    """`labels_by_report` a chunk of reports at a time (called with their ids, None for all, or with a range of
    ids), each rater's run of record found once: an export's memory then does not grow with the corpus."""

    def __init__(self, study: Study):
        self.runs = [(rater.name, latest_run(rater)) for rater in raters_of(study)]

    def __call__(self, issue_ids, id_range: tuple[int, int] | None = None) -> dict[int, dict[str, str]]:
        out: dict[int, dict[str, str]] = {}
        for name, run in self.runs:
            record, _ = run_labels(run, issue_ids, id_range)
            for issue, chain in record.items():
                out.setdefault(issue, {})[name] = "" if chain is None else (chain[2] or chain[1] or chain[0])
        return out


def call_log(rater) -> list[dict]:
    return [{"issue": c.issue_id, "attempt": c.attempt, "key": c.key, "prompt_hash": c.prompt_hash,
             "model": c.model, "model_reported": c.model_reported, "made_at": c.made_at.isoformat(),
             "seconds": c.seconds, "prompt_tokens": c.prompt_tokens, "completion_tokens": c.completion_tokens,
             "answer": c.answer, "failure": c.failure} for c in LlmCall.objects.filter(rater=rater).order_by("pk")]
