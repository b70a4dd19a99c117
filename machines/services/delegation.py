"""Delegating reports to a jury in the open independent round (stats.jury's rule): on the reports the jury takes,
every person's seat holds the jury's label, so those reports leave every queue and the jury's votes settle them,
marked as machines' (annotation.services.seats). Ending the delegation gives every seat back."""
from __future__ import annotations

from dataclasses import dataclass

from django.db import transaction

from annotation.models import NOT_RELEVANT, Queue, Seat, Study
from annotation.services.seats import SeatError, SeatVote, give_back, lock_study, seat_round, take_seat, withdrawable
from stats.jury import ALPHA_MIN, CONFIDENCE_MIN, MIN_JURY, checked, delegate, promise_kept
from stats.proportions import Rate
from taxonomy.models import Category

from ..models import MachineRater
from ..selectors import panel, type_votes

JURY = "jury: "


class DelegationError(SeatError):
    pass


@dataclass
class Plan:
    name: str  # the seats' machine: "jury: " and the members' names
    alpha: float | None
    fit: bool
    votes: dict[int, SeatVote]  # the delegated reports, each with the jury's type
    per_person: list[tuple[int, str, int]]  # (person, username, reports that would leave their queue)
    checked: Rate  # the jury's type against people's plurality, on the reports it would take that people labeled
    alpha_min: float = ALPHA_MIN
    confidence_min: float = CONFIDENCE_MIN

    @property
    def total(self) -> int:
        return sum(n for _, _, n in self.per_person)

    @property
    def promise_kept(self) -> bool:
        """Whether people's labels show the jury right as often as its confidence threshold promises."""
        return promise_kept(self.checked, self.confidence_min)

    @property
    def near_the_line(self) -> bool:
        """Whether alpha is within 0.1 of the gate: on a few hundred reports, machines whose alpha is truly at the
        line pass about half the time (tests/stats/test_jury.py), so the verdict could fall either way."""
        return self.alpha is not None and abs(self.alpha - self.alpha_min) < 0.1


def _threshold(field: str, value, default: float) -> float:
    try:
        number = float(default if value in (None, "") else value)
    except (TypeError, ValueError):
        number = float("nan")
    if not 0 <= number <= 1:  # NaN too
        raise DelegationError(field, f"the thresholds are numbers from 0 to 1, not {str(value)[:40]!r}")
    return number


def _settings(alpha_min, confidence_min) -> tuple[float, float]:
    return _threshold("alpha", alpha_min, ALPHA_MIN), _threshold("confidence", confidence_min, CONFIDENCE_MIN)


def plan(study: Study, raters: list[MachineRater], alpha_min=None, confidence_min=None) -> Plan:
    """What delegating to the jury would do now: the reports it takes at type level, and per person of the open
    round how many of their unlabeled reports would leave their queue. A person in whose seat a machine stands
    already keeps their queue."""
    alpha_min, confidence_min = _settings(alpha_min, confidence_min)
    if len(raters) < MIN_JURY:
        raise DelegationError("raters", f"a jury needs {MIN_JURY} machine raters or more, not {len(raters)}")
    round = seat_round(study)
    ids = sorted(study.issues.values_list("pk", flat=True))
    try:
        votes, sure = type_votes(raters, ids)
    except LookupError as exc:
        raise DelegationError("raters", f"{exc.args[0]} has no run that succeeded") from None
    made = delegate(votes, sure, alpha_min, confidence_min)
    humans = panel(study).humans.values()
    against = checked([[labels[i][0] if i in labels else None for labels in humans] for i in ids], made)
    types = dict(Category.objects.filter(codebook=study.codebook_id, level=Category.Level.TYPE,
                                         retired_at__isnull=True).values_list("code", "pk"))
    taken: dict[int, SeatVote] = {}
    for i, sent, label in zip(ids, made.delegated, made.labels, strict=True):
        if sent and label == NOT_RELEVANT:
            taken[i] = (False, None, None, None)
        elif sent and label in types:
            taken[i] = (True, types[label], None, None)
    seated = set(Seat.objects.filter(round=round, given_back_at__isnull=True).values_list("annotator_id", flat=True))
    queues = Queue.objects.filter(round=round, stopped_at__isnull=True).exclude(annotator_id__in=seated) \
        .select_related("annotator").order_by("annotator__username")
    per_person = [(q.annotator_id, q.annotator.username, len(withdrawable(round, q.annotator_id, taken)))
                  for q in queues]
    name = (JURY + ", ".join(r.name for r in raters))[:100]
    return Plan(name, made.alpha, made.fit, taken, per_person, against, alpha_min, confidence_min)


@transaction.atomic
def apply(study: Study, raters: list[MachineRater], *, alpha_min=None, confidence_min=None, expected: int,
          by) -> list[Seat]:
    """Delegate: every person's unlabeled reports among the jury's leave their queue, and the jury's label stands
    in each of their seats. `expected`: how many reports in all the confirmation said would leave the queues."""
    locked = lock_study(study.pk)
    made = plan(locked, raters, alpha_min, confidence_min)
    if not made.fit:
        raise DelegationError("alpha", f"the machines agree with each other too little here (alpha "
                                       f"{'undefined' if made.alpha is None else f'{made.alpha:.3f}'}): nothing is "
                                       "delegated")
    if not made.promise_kept:
        low = made.checked.low
        raise DelegationError("confidence", (
            f"people's labels do not show the jury right {round(made.confidence_min * 100)} % of the time, as its "
            f"threshold "
            f"promises: its type is people's plurality on {made.checked.successes} of {made.checked.n} reports it "
            f"would take that people labeled" + ("" if low is None else f" (95 % interval from {round(low * 100)} %)")
            + "; nothing is delegated. Members surer than they are right agree on wrong labels too: raise the "
              "threshold, or let people label more of such reports first"))
    if made.total != expected:
        raise DelegationError("expected", f"{made.total} reports in all would leave people's queues now, not "
                                          f"{expected} as the page said; nothing was changed. Confirm the new number.")
    if not made.total:
        raise DelegationError("", "no unlabeled report in anyone's queue is the jury's to take")
    return [take_seat(locked, person, made.votes, machine=made.name, level="type", by=by, expected=n)
            for person, _, n in made.per_person if n]


def standing_jury_seats(study: Study):
    return Seat.objects.filter(study=study, given_back_at__isnull=True, machine__startswith=JURY)


@transaction.atomic
def end(study: Study, by) -> int:
    """Every seat a jury holds goes back to its person; how many reports came back to the queues."""
    lock_study(study.pk)
    return sum(give_back(seat, by, because="the delegation to a jury ended") for seat in standing_jury_seats(study))
