"""The lead's decision that a machine may take one annotator's place at one level, and its watch on sentinels."""
from __future__ import annotations

from dataclasses import dataclass

from django.db import IntegrityError, transaction
from django.utils import timezone

from annotation.models import Seat, Study
from annotation.services.seats import give_back, lock_study, take_seat
from concord.audit import record as audit
from concord.errors import FieldError
from concord.textcheck import fitted
from stats.alt_test import EPSILONS

from ..measures import LEVELS, below_decision, sentinel_baseline
from ..models import ReplacementDecision
from ..selectors import latest_run, machine_labels, measurement, panel
from .measurements import panel_state, requested
from .seats import seat_votes
from .sentinels import sentinel_reports, sentinels_of

DEFAULT_SENTINELS = 0.1


class DecisionError(FieldError):
    pass


def _share(value) -> float:
    try:
        share = float(str(value).strip()) if value not in (None, "") else DEFAULT_SENTINELS
    except ValueError:
        raise DecisionError("sentinel_share", f"a share from 0.01 to 1, not {str(value)[:40]!r}") from None
    if not 0.01 <= share <= 1:
        raise DecisionError("sentinel_share", f"a share from 0.01 to 1, not {share}")
    return share


def record(rater, *, level: str, type_code: str, epsilon: float, reason: str, by, expected_run: int,
           sentinel_share=None) -> ReplacementDecision:
    """Record the decision, only where the alternative annotator test passes on the rater's labels of record
    (run `expected_run`, the one whose figures the lead was shown); the figures are frozen beside it."""
    if level not in LEVELS:
        raise DecisionError("level", f"one of {', '.join(LEVELS)}")
    if level != "type" and not type_code:
        raise DecisionError("type_code", "the type whose reports the decision is about")
    if level == "type":
        type_code = ""
    if epsilon not in EPSILONS.values():
        raise DecisionError("epsilon", "0.2 (expert annotators), 0.15 (skilled) or 0.1 (crowd)")
    reason = fitted((reason or "").strip(), "reason", 5000)
    if not reason:
        raise DecisionError("reason", "say why the machine may stand in for an annotator here")
    share = _share(sentinel_share)
    run = latest_run(rater)
    if run is None or run.pk != expected_run:
        raise DecisionError("expected_run", "the rater's labels of record changed since the page was shown; "
                                            "look at the new figures first")
    measured = requested(run, level, type_code, epsilon)
    if measured is None:
        raise DecisionError("", "the figures for this level and ε are still being measured; decide when the page "
                                "shows them")
    figures = measured.figures
    if not figures["alt_test"]["passed"]:
        rate = figures["alt_test"]["winning_rate"]
        raise DecisionError("", "the alternative annotator test does not pass here (winning rate "
                                f"{'undefined' if rate is None else f'{rate:.2f}'}, it needs 0.5 or more), so the "
                                "figures do not support letting the machine replace an annotator")
    study: Study = rater.study
    # The sentinels' own kappa now, kept beside the figures: the watch compares the sentinels with themselves.
    the_panel = panel(study)
    loaded = machine_labels(rater)
    chosen = sentinels_of(study, share, the_panel.reference_types, level, type_code)
    figures = figures | {"sentinels_at_decision": sentinel_baseline(
        the_panel.humans, loaded.record if loaded else {}, sorted(chosen), level=level)}
    try:
        with transaction.atomic():
            decision = ReplacementDecision.objects.create(
                rater=rater, level=level, type_code=type_code, epsilon=epsilon, figures=figures, reason=reason,
                sentinel_share=share, sentinel_seed=study.seed, decided_by=by)
            audit("machine decision recorded", by, study, rater=rater.name, level=level, type=type_code,
                  epsilon=epsilon, sentinel_share=share)
            return decision
    except IntegrityError:
        raise DecisionError("", "a decision for this machine at this level stands already (a double submit, or "
                                "someone else meanwhile)") from None


def withdraw(decision: ReplacementDecision, *, by, reason: str) -> ReplacementDecision:
    """Withdraw the decision; a seat it holds is given back (annotation.services.seats.give_back)."""
    reason = fitted((reason or "").strip(), "reason", 5000)
    if not reason:
        raise DecisionError("reason", "say why the decision is withdrawn")
    with transaction.atomic():
        # The study first, as applying and closing a round take it: a withdrawal and an apply queue up.
        lock_study(decision.rater.study_id)
        changed = ReplacementDecision.objects.filter(pk=decision.pk, withdrawn_at__isnull=True).update(
            withdrawn_at=timezone.now(), withdrawn_by=by, withdrawn_reason=reason)
        if not changed:
            raise DecisionError("", "the decision was withdrawn already")
        decision.refresh_from_db()
        if decision.seat_id is not None:
            give_back(decision.seat, by)
            decision.seat.refresh_from_db()
        audit("machine decision withdrawn", by, decision.rater.study_id, rater=decision.rater.name,
              level=decision.level)
    return decision


@transaction.atomic
def apply(decision: ReplacementDecision, *, annotator_id: int, expected: int, by) -> Seat:
    """Put the standing decision to work in the open independent round: the machine takes the annotator's seat on
    every report but the sentinels (machines.services.seats). `expected`: how many of their reports the
    confirmation said would leave their queue."""
    study = lock_study(decision.rater.study_id)
    decision = ReplacementDecision.objects.select_for_update().get(pk=decision.pk)
    if decision.withdrawn_at is not None:
        raise DecisionError("", "the decision was withdrawn; nothing was changed")
    if decision.seat_id is not None and decision.seat.standing:
        raise DecisionError("", f"the decision holds {decision.seat.annotator.username}'s seat already (a double "
                                "submit, or someone else meanwhile); nothing was changed")
    seat = take_seat(study, annotator_id, seat_votes(decision), machine=decision.rater.name, level=decision.level,
                     by=by, expected=expected)
    ReplacementDecision.objects.filter(pk=decision.pk).update(seat=seat)
    return seat


@dataclass
class Watch:
    decision: ReplacementDecision
    sentinels: int
    figures: dict | None
    below: bool


def watch(decision: ReplacementDecision, the_panel=None) -> Watch:
    """The machine's agreement with the people on the sentinel reports now, and whether it fell below the
    interval it was decided on."""
    the_panel = the_panel or panel(decision.rater.study)
    chosen = sentinel_reports(decision, the_panel.reference_types)
    figures = measurement(decision.rater, level=decision.level, type_code=decision.type_code,
                          epsilon=decision.epsilon, only=chosen, the_panel=the_panel)
    return Watch(decision, len(chosen), figures, bool(figures) and below_decision(decision.figures, figures))


def watch_kept(decision: ReplacementDecision, state: str | None = None) -> Watch | None:
    """The watch as a worker measured it for the panel as it is now (`watch`, kept); None while it is being
    measured. For pages: the statistics libraries stay out of the web process. `state`: the panel's state
    (machines.services.measurements.panel_state), read once for a page's several decisions."""
    run = latest_run(decision.rater)
    if run is None:
        return Watch(decision, 0, None, False)
    measured = requested(run, decision.level, decision.type_code, decision.epsilon, decision.pk, state=state)
    if measured is None:
        return None
    figures = measured.figures["figures"]
    return Watch(decision, measured.figures["sentinels"], figures,
                 bool(figures) and below_decision(decision.figures, figures))


def watches_kept(study: Study) -> list[Watch]:
    """The kept watch of every standing decision of the study that has been measured."""
    state = panel_state(study)
    return [w for w in (watch_kept(d, state) for d in standing(study)) if w is not None]


def standing(study: Study):
    return ReplacementDecision.objects.filter(rater__study=study, withdrawn_at__isnull=True).select_related(
        "rater", "decided_by")
