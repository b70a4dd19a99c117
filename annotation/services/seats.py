"""A person's seat on some reports of the open independent round, handed to a machine and given back.

What the machine may label, and with which label, is the machines app's to say; here is only what a seat does
to queues: the reports the person had not labeled leave their queue, and come back when the seat is given back.
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence

from django.db import connection, transaction
from django.db.models import Exists, F, OuterRef
from django.utils import timezone

from concord.audit import record
from concord.errors import FieldError

from .. import sql
from ..models import Assignment, Label, Membership, Queue, Round, Seat, SeatLabel, Study
from .queues import fill_queues, study_order

# Placeholders per statement: under SQLite's oldest limit (999), whatever the build.
CHUNK = 900

# A machine's vote in a seat: (relevant, type id, theme id, sub-theme id), cut at the seat's level.
SeatVote = tuple[bool, int | None, int | None, int | None]


class SeatError(FieldError):
    pass


def lock_study(study_id: int) -> Study:
    """The study row, locked against a round closing and another seat changing hands at once. NO KEY UPDATE, not
    UPDATE: a label being saved meanwhile holds its report's assignment and checks its study's key (FOR KEY
    SHARE); a full lock here would wait on that save while the save waits on this, a deadlock."""
    return Study.objects.select_for_update(no_key=True).get(pk=study_id)


def seat_round(study: Study) -> Round:
    """The round a seat is handed in: the open independent round. In the pilot only the lead labels; in review
    everyone may re-label what is tied, and a machine's vote stands there from the independent round already."""
    round = Round.objects.filter(pk=study.current_round_id, closed_at__isnull=True).first()
    if round is None or round.kind != Round.Kind.INDEPENDENT:
        raise SeatError("round", "a seat is handed to a machine during the independent round, while the study is "
                                 "in it; the study is not")
    return round


def withdrawable(round: Round, annotator_id: int, among: Sequence[int] | set[int]) -> list[int]:
    """The reports of `among` waiting in the person's queue that they have not labeled, in queue order. A report
    a codebook change sent back has their label: it stays theirs."""
    among = set(among)
    labeled = Label.objects.filter(round=round, annotator_id=annotator_id, issue_id=OuterRef("issue_id"))
    waiting = (Assignment.objects.filter(queue__round=round, queue__annotator_id=annotator_id, done=False)
               .exclude(Exists(labeled)).order_by("position").values_list("issue_id", flat=True))
    return [i for i in waiting.iterator(chunk_size=10000) if i in among]


def _withdraw(queue: Queue, issue_ids: list[int]) -> list[int]:
    """Delete the queue's assignments of these reports that are still not done and unlabeled (annotation.sql says
    how that holds against a label saved at the same moment); the ids deleted."""
    gone: list[int] = []
    with connection.cursor() as cursor:
        for start in range(0, len(issue_ids), CHUNK):
            chunk = issue_ids[start:start + CHUNK]
            cursor.execute(sql.withdraw_unlabeled(len(chunk)),
                           [queue.pk, False, *chunk, queue.round_id, queue.annotator_id])
            gone.extend(row[0] for row in cursor.fetchall())
    return gone


@transaction.atomic
def take_seat(study: Study, annotator_id: int, votes: Mapping[int, SeatVote], *, machine: str, level: str, by,
              expected: int) -> Seat:
    """Hand the person's seat on the reports `votes` names to the machine: those they have not labeled leave
    their queue and the machine's vote stands there. `expected`: how many reports the confirmation named; when
    that changed (they labeled meanwhile), nothing is done and the new number is said."""
    locked = lock_study(study.pk)
    round = seat_round(locked)
    queue = Queue.objects.filter(round=round, annotator_id=annotator_id).select_related("annotator").first()
    if queue is None:
        raise SeatError("annotator", "they have no queue in this round")
    if queue.stopped_at is not None:
        raise SeatError("annotator", "they stopped labeling this round; their labels are set aside already")
    if Seat.objects.filter(round=round, annotator_id=annotator_id, given_back_at__isnull=True).exists():
        raise SeatError("annotator", f"a machine holds {queue.annotator.username}'s seat in this round already")
    candidates = withdrawable(round, annotator_id, votes.keys())
    if len(candidates) != expected:
        raise SeatError("expected_withdrawn", f"{len(candidates)} of {queue.annotator.username}'s reports would "
                                              f"leave their queue now, not {expected} as the page said (they "
                                              "labeled meanwhile, or the machine's labels changed); nothing was "
                                              "changed. Confirm the new number.")
    if not candidates:
        raise SeatError("annotator", f"{queue.annotator.username} has no unlabeled report the machine could take")
    seat = Seat.objects.create(study=locked, round=round, annotator_id=annotator_id, machine=machine, level=level,
                               taken_by=by)
    gone = _withdraw(queue, candidates)
    Queue.objects.filter(pk=queue.pk).update(total=F("total") - len(gone))
    SeatLabel.objects.bulk_create(
        [SeatLabel(seat=seat, issue_id=i, is_relevant=votes[i][0], type_id=votes[i][1], theme_id=votes[i][2],
                   sub_theme_id=votes[i][3]) for i in gone], batch_size=5000)
    record("seat handed to a machine", by, locked, machine=machine, annotator=queue.annotator.username,
           round=round.number, level=level, reports=len(gone))
    return seat


@transaction.atomic
def give_back(seat: Seat, by, because: str = "the decision was withdrawn") -> int:
    """The seat is the person's again: the machine's votes count no more and, while its round is open and they
    are still a member, the reports come back to their queue (those they labeled meanwhile stay done). Returns
    how many came back."""
    locked = lock_study(seat.study_id)
    seat = Seat.objects.select_for_update().get(pk=seat.pk)
    if seat.given_back_at is not None:
        return 0
    round = seat.round
    returned = 0
    if round.is_open and Membership.objects.filter(study=locked, user_id=seat.annotator_id,
                                                   user__is_active=True).exists():
        mine = set(seat.labels.values_list("issue_id", flat=True))
        queue = Queue.objects.filter(round=round, annotator_id=seat.annotator_id).first()
        had = set(queue.assignments.values_list("issue_id", flat=True)) if queue else set()
        back = [i for i in study_order(round) if i in mine and i not in had]
        fill_queues(round, {seat.annotator_id: back})
        returned = len(back)
    Seat.objects.filter(pk=seat.pk).update(given_back_at=timezone.now(), given_back_by=by, returned=returned)
    record("seat given back", by, locked, machine=seat.machine, annotator=seat.annotator.username,
           round=round.number, reports_back_in_queue=returned, because=because)
    return returned
