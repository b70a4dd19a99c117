"""Filling annotators' queues for a round, and skipping within them."""
from __future__ import annotations

from collections.abc import Iterable, Sequence

from django.db import connection, transaction
from django.db.models import Count, Exists, F, OuterRef, Q, Subquery
from django.db.models.functions import Coalesce
from django.utils import timezone

from .. import sql
from ..models import Assignment, Label, Membership, Queue, QueueWeight, Round, Study
from ..planning import by_keys, spread

BATCH = 5000


def study_order(round: Round) -> list[int]:
    """The study's reports in the order queues present them: oldest report first; or in the study's seeded
    random order; or by each report's key over its weight, what a machine was least sure of coming first."""
    study = round.study
    oldest = list(study.issues.order_by("created_at", "id").values_list("id", flat=True))
    if study.queue_order == Study.QueueOrder.OLDEST:
        return oldest
    weights = None
    if study.queue_order == Study.QueueOrder.CONFIDENCE:
        weights = dict(QueueWeight.objects.filter(study=study).values_list("issue_id", "weight"))
    return by_keys(oldest, study.seed, weights)


@transaction.atomic
def fill_queues(round: Round, plan: dict[int, Sequence[int]]) -> None:
    """One queue per annotator with the planned reports; an annotator who has a queue already gets only the
    reports it lacks, so that filling twice (a member joining late, a retried request) adds nothing twice."""
    for annotator_id, issue_ids in plan.items():
        queue, _ = Queue.objects.get_or_create(round=round, annotator_id=annotator_id)
        have = set(queue.assignments.values_list("issue_id", flat=True))
        start = (queue.assignments.order_by("-position").values_list("position", flat=True).first() or 0) + 1
        new = [i for i in issue_ids if i not in have]
        _insert(queue, new, start)
        Queue.objects.filter(pk=queue.pk).update(total=F("total") + len(new))


def _insert(queue: Queue, issue_ids: list[int], start: int) -> None:
    if connection.vendor == "postgresql" and len(issue_ids) > BATCH:
        # COPY writes 40,000 rows in well under a second; bulk_create takes several.
        sql.insert_rows(Assignment, ["queue", "issue", "position", "done", "skipped", "skip_reason",
                                     "requeued_because"],
                        ((queue.pk, issue_id, start + offset, False, False, "", "")
                         for offset, issue_id in enumerate(issue_ids)))
        return
    rows = (Assignment(queue=queue, issue_id=i, position=start + n) for n, i in enumerate(issue_ids))
    batch: list[Assignment] = []
    for row in rows:
        batch.append(row)
        if len(batch) == BATCH:
            Assignment.objects.bulk_create(batch)
            batch = []
    Assignment.objects.bulk_create(batch)


def plan_round(round: Round, annotator_ids: Iterable[int], issue_ids: Sequence[int] | None = None,
               overlap: int | None = None) -> dict[int, list[int]]:
    issue_ids = study_order(round) if issue_ids is None else issue_ids
    return spread(issue_ids, sorted(annotator_ids), overlap, round.study.seed)


def skip(user, round: Round, issue_id: int, reason: str) -> int:
    """Put a report at the end of the user's queue with a reason; returns how many rows changed (0 or 1)."""
    return Assignment.objects.filter(queue__round=round, queue__annotator=user, issue_id=issue_id).update(
        skipped=True, skip_reason=reason.strip()[:300], skipped_at=timezone.now()
    )


def requeue(study, category_ids: list[int], because: str) -> int:
    """Send back to their annotators' queues the labels of the study's open round that use any of these
    categories, to choose again. The labels stay as they are (and are shown) until re-chosen."""
    round = study.rounds.filter(closed_at__isnull=True).first()
    if round is None or not category_ids:
        return 0
    uses = Label.objects.filter(round=round, annotator=OuterRef("queue__annotator"), issue=OuterRef("issue")).filter(
        Q(type_id__in=category_ids) | Q(theme_id__in=category_ids) | Q(sub_theme_id__in=category_ids))
    sent = Assignment.objects.filter(queue__round=round, done=True).exclude(queue__in=_seen_the_others(study, round)) \
        .filter(Exists(uses)).update(done=False, requeued_because=because[:300])
    done = Assignment.objects.filter(queue=OuterRef("pk"), done=True).values("queue").annotate(n=Count("pk"))
    Queue.objects.filter(round=round).update(done=Coalesce(Subquery(done.values("n")), 0))
    return sent


def _seen_the_others(study, round: Round):
    """The queues of raters who may have seen the others' labels of this round: a lead who labels blind and
    finished their queue, or stopped labeling. Such a rater is no longer independent, so nothing is sent back to
    them to label again; their label stays as it was given."""
    if round.kind != Round.Kind.INDEPENDENT or not study.lead_labels_blind:
        return Queue.objects.none()
    return Queue.objects.filter(round=round, annotator__memberships__study=study,
                                annotator__memberships__role=Membership.Role.LEAD).filter(
        Q(stopped_at__isnull=False) | Q(done__gte=F("total"))).values("pk")
