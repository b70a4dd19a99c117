"""Moving a study through its phases: pilot → independent → review → adjudication → closed (paper §4.2)."""
from __future__ import annotations

from django.core.exceptions import PermissionDenied
from django.db import transaction
from django.urls import reverse
from django.utils import timezone

from accounts import notices
from concord.audit import record
from concord.ids import parse_id
from ingest.screening import seeded_sample

from .. import events
from ..models import Membership, Queue, Round, Study, TiedReport
from ..permissions import can_manage
from ..selectors.phases import COMPLETE_BEFORE_CLOSING, NEXT_PHASE, Phase, missing_labels, open_round
from ..selectors.studies import leads
from ..selectors.votes import needing_decision, still_tied
from .adjudication import finalize
from .queues import fill_queues, plan_round, study_order


class PhaseError(ValueError):
    """A phase change that is refused; the message says why and what to do."""


def _new_round(study: Study, kind: str) -> Round:
    number = (study.rounds.order_by("-number").values_list("number", flat=True).first() or 0) + 1
    round = Round.objects.create(study=study, number=number, kind=kind)
    study.current_round = round
    study.save(update_fields=["current_round"])
    return round


def _labelers(study: Study) -> list[int]:
    # Inactive members (imported raters, people who left) get no queue.
    return list(study.memberships.filter(user__is_active=True).values_list("user_id", flat=True))


def start(study: Study, with_pilot: bool) -> Round:
    """The first round: the lead's pilot on a seeded sample, or straight to the independent round."""
    if with_pilot and study.pilot_fraction > 0:
        study.phase = Phase.PILOT
        study.save(update_fields=["phase"])
        round = _new_round(study, Round.Kind.PILOT)
        fill_queues(round, _pilot_plan(study, round))
        return round
    study.phase = Phase.INDEPENDENT
    study.save(update_fields=["phase"])
    return _start_independent(study)


def _pilot_plan(study: Study, round: Round) -> dict[int, list[int]]:
    order = study_order(round)
    sample = set(seeded_sample(order, study.seed, fraction=study.pilot_fraction))
    lead_ids = study.memberships.filter(role=Membership.Role.LEAD).values_list("user_id", flat=True)
    return {lead: [i for i in order if i in sample] for lead in lead_ids}


def redraw_pilot(study: Study) -> None:
    """A new pilot sample after the lead changed its share or seed (only before any pilot label)."""
    round = study.current_round
    Queue.objects.filter(round=round).delete()
    fill_queues(round, _pilot_plan(study, round))


def _start_independent(study: Study) -> Round:
    round = _new_round(study, Round.Kind.INDEPENDENT)
    fill_queues(round, plan_round(round, _labelers(study), overlap=study.overlap))
    return round


def _start_review(study: Study) -> Round:
    round = _new_round(study, Round.Kind.REVIEW)
    # No one has re-labeled yet, so the current votes are the independent round's.
    tied = still_tied(study)
    order = [i for i in study_order(round) if i in tied]
    TiedReport.objects.bulk_create([TiedReport(round=round, issue_id=i, levels=tied[i]) for i in order])
    if order:
        # The independent round is closed: which reports tied, and at which levels, is no longer blind.
        events.tell(study, "tie.created", {"round": {"number": round.number, "kind": round.kind},
                                             "ties": len(order),
                                             "reports": [{"id": i, "levels": tied[i]} for i in order[:1000]]})
    # Everyone may re-label a controversial report; the queue is where their re-labels are counted.
    fill_queues(round, {annotator: order for annotator in _labelers(study)})
    return round


def expected_state(data) -> tuple[str, int] | None:
    """The phase and round number a form was shown for (its hidden expected_phase and expected_round)."""
    phase, number = data.get("expected_phase", ""), data.get("expected_round", "")
    number = parse_id(number)
    if phase not in Phase.values or number is None:
        return None
    return phase, number


def state_of(study: Study) -> tuple[str, int]:
    """The phase and round a form moving the study on names: the study's current round, open or closed (there is
    no open round in adjudication, but round numbers still tell a double click from a first one)."""
    number = study.current_round.number if study.current_round_id else 0
    return study.phase, number


@transaction.atomic
def advance(study: Study, user, *, confirm_missing: bool = False, expected: tuple[str, int] | None = None,
            require_expected: bool = False) -> Study:
    """Close the open round and move to the next phase. Refused while labels are missing, unless confirmed, and
    when the study is no longer in the phase and round the request expects (a double click, a resent form, a
    lead and an admin at once: the study moves once)."""
    if not can_manage(user, study):
        raise PermissionDenied("Only the study's lead or an admin moves it to the next phase.")
    if expected is None and require_expected:
        raise PhaseError("The form did not say which phase it was shown for; reload the page and try again.")
    # Two leads pressing the button together must not open two rounds: the second waits here for the first.
    # No join here: a row joined while waiting for the lock would be read from before the other transaction.
    study = Study.objects.select_for_update().get(pk=study.pk)
    _check_may_advance(study, expected)
    current = open_round(study)
    if current is not None:
        _close(current, confirm_missing)
    before = study.phase
    study.phase = NEXT_PHASE[study.phase]
    study.save(update_fields=["phase"])
    if current is not None:
        events.tell(study, "round.closed", {"round": {"number": current.number, "kind": current.kind},
                                              "phase": study.phase})
    record("phase changed", user, study, before=before, after=study.phase,
           round_closed=current.number if current is not None else None)
    _enter(study)
    return study


def _check_may_advance(study: Study, expected: tuple[str, int] | None) -> None:
    """Refused when the study is not where the form expects it, is closed, or has ties still to decide."""
    if expected is not None and state_of(study) != expected:
        phase, number = state_of(study)
        raise PhaseError(f"The study has moved on since this page was shown: it is in its "
                         f"{Phase(phase).label.lower()} phase (round {number}), not {Phase(expected[0]).label.lower()}"
                         f" (round {expected[1]}). Nothing was changed; look at the page again before moving on.")
    if study.phase not in NEXT_PHASE:
        raise PhaseError(f"{study} is closed; there is no next phase.")
    if study.phase == Phase.ADJUDICATION:
        waiting = needing_decision(study)
        if waiting:
            raise PhaseError(f"{len(waiting)} reports still need the lead's decision (tied, or never labeled); "
                             "decide them on the adjudication page first.")


def _close(current: Round, confirm_missing: bool) -> None:
    missing = missing_labels(current) if current.kind in COMPLETE_BEFORE_CLOSING else []
    if missing and not confirm_missing:
        total = sum(m.count for m in missing)
        who = ", ".join(f"{m.username} {m.count}" for m in missing)
        raise PhaseError(f"{total} labels are still missing in round {current.number} ({who}). "
                         "Confirm to close the round anyway.")
    current.closed_at = timezone.now()
    current.save(update_fields=["closed_at"])


def _enter(study: Study) -> None:
    """What the phase the study has just entered starts."""
    if study.phase == Phase.INDEPENDENT:
        _start_independent(study)
    elif study.phase == Phase.CLOSED:
        finalize(study)
        notices.settle(f"ties:{study.pk}")
    elif study.phase == Phase.REVIEW:
        if not study.rounds.filter(kind=Round.Kind.INDEPENDENT).exists():
            raise PhaseError("There is no independent round to review.")
        _start_review(study)
    elif study.phase == Phase.ADJUDICATION:
        # Which reports still tie takes every vote of the study to say: the notice says where, the page says which.
        notices.notify(leads(study), "ties", f"ties:{study.pk}", {"study": study.name},
                       url=reverse("annotation:adjudication_list", args=[study.pk]), study_id=study.pk)


def join_round(study: Study, user) -> None:
    """A member added while a round is open gets a queue: every report in an independent round when everyone
    labels everything (with overlap k the lead re-plans instead), every controversial report in review."""
    round = open_round(study)
    if round is None or not user.is_active:
        return
    if round.kind == Round.Kind.INDEPENDENT and study.overlap is None:
        fill_queues(round, {user.pk: study_order(round)})
    elif round.kind == Round.Kind.REVIEW:
        fill_queues(round, {user.pk: list(round.tied_reports.values_list("issue_id", flat=True))})
