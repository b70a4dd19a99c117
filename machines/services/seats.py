"""A standing decision applied: the machine takes one annotator's seat on the reports it may label in the open
independent round (all but the sentinels, which keep the full human panel), and gives it back when the decision
is withdrawn."""
from __future__ import annotations

from dataclasses import dataclass

from annotation.models import NOT_RELEVANT, Queue, Seat, Study
from annotation.services.seats import SeatError, SeatVote, give_back, seat_round, withdrawable
from taxonomy.models import Category

from ..measures import below_decision
from ..models import ReplacementDecision
from ..selectors import latest_run, run_labels
from .sentinels import sentinel_reports


class ApplyError(SeatError):
    pass


def seat_votes(decision: ReplacementDecision) -> dict[int, SeatVote]:
    """The machine's label of record on each report the decision lets it take, cut at the decision's level.

    Only a decision at type level is applied: a seat is a place on whole reports, and a decision below it holds
    for the reports of one type, which are known only once people have labeled them. The machine's vote names
    the type (or "not relevant") and nothing below, so themes and sub-themes have one person fewer there."""
    if decision.level != "type":
        raise ApplyError("level", "only a decision at type level is applied to queues: one below it holds for the "
                                  "reports of one type, known only once people have labeled them")
    study: Study = decision.rater.study
    record, _ = run_labels(latest_run(decision.rater))
    # At type level the sentinels are a seeded share of every report; no report's type is needed to draw them.
    kept = sentinel_reports(decision, {})
    types = dict(Category.objects.filter(codebook=study.codebook_id, level=Category.Level.TYPE,
                                         retired_at__isnull=True).values_list("code", "pk"))
    reports = set(study.issues.values_list("pk", flat=True))
    votes: dict[int, SeatVote] = {}
    for issue, chain in record.items():
        if chain is None or issue in kept or issue not in reports:
            continue
        if chain[0] == NOT_RELEVANT:
            votes[issue] = (False, None, None, None)
        elif chain[0] in types:
            votes[issue] = (True, types[chain[0]], None, None)
    return votes


@dataclass
class Offer:
    annotator_id: int
    username: str
    reports: int


def offers(decision: ReplacementDecision) -> list[Offer]:
    """Whose seat the decision could take in the open round, and how many of their reports would leave their
    queue; empty outside the independent round, or when the decision stands in a seat already."""
    study = decision.rater.study
    if decision.withdrawn_at is not None or decision.level != "type" or \
            (decision.seat_id is not None and decision.seat.standing):
        return []
    try:
        round = seat_round(study)
    except SeatError:
        return []
    votes = seat_votes(decision)
    taken = set(Seat.objects.filter(round=round, given_back_at__isnull=True).values_list("annotator_id", flat=True))
    queues = Queue.objects.filter(round=round, stopped_at__isnull=True).exclude(annotator_id__in=taken) \
        .select_related("annotator").order_by("annotator__username")
    return [Offer(q.annotator_id, q.annotator.username, len(withdrawable(round, q.annotator_id, votes)))
            for q in queues]


def give_back_on_alarm(decision: ReplacementDecision, watched: dict | None) -> int:
    """The sentinel watch fired (`watched`: the machine's figures on the sentinels now): the seat the decision holds
    goes back to its person, and the decision stands for the lead to look at again. Only under the watch's own
    rule (the sentinels then against the sentinels now); a decision older than that rule is compared with its
    interval on all reports, which raises false alarms, so there the page only flags it. Returns how many
    reports came back to the person's queue."""
    if decision.seat_id is None or not watched or not decision.figures.get("sentinels_at_decision"):
        return 0
    seat = decision.seat
    if not seat.standing or not below_decision(decision.figures, watched):
        return 0
    return give_back(seat, None, because="the sentinel watch fired")
