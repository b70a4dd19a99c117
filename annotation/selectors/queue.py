"""One's own queue: the next report, neighbours, progress, one's own labels and skips, the searchable list.
Nothing here reads anyone else's label except as counts, for those who may see them."""
from __future__ import annotations

from dataclasses import dataclass

from django.db.models import Count, Q, QuerySet

from concord import rows
from ingest.models import Issue, Source

from .. import sql
from ..models import NOT_RELEVANT, Assignment, Label, Queue, Round, Study


def next_assignment(user, round: Round) -> Assignment | None:
    """The first report of the user's queue not labeled yet; skipped reports come after all the others.
    One read of the queue's index, however long the queue."""
    row = rows.fetch_one(sql.next_assignment(), [round.pk, user.pk, False])
    if row is None:
        return None
    assignment = rows.instance(Assignment, row)
    at = rows.width(Assignment)
    assignment.issue = rows.instance(Issue, row, at)
    assignment.issue.source = rows.instance(Source, row, at + rows.width(Issue))
    return assignment


def assignment_of(user, round: Round, issue_id: int) -> Assignment | None:
    return Assignment.objects.filter(queue__round=round, queue__annotator=user, issue_id=issue_id).first()


def neighbour(user, round: Round, position: int | None, before: bool = True) -> int | None:
    """The report just before (or after) `position` in the user's queue, for "previous" and "next"; before no
    position, the queue's last report."""
    items = Assignment.objects.filter(queue__round=round, queue__annotator=user)
    if before:
        items = (items if position is None else items.filter(position__lt=position)).order_by("-position")
    else:
        items = items.filter(position__gt=position).order_by("position")
    return items.values_list("issue_id", flat=True).first()


@dataclass(frozen=True)
class Progress:
    """Counts only: one's own queue and the whole round's, never anyone's labels. The round's count is of
    reports labeled, a report a codebook change sent back to choose again included: it must not drop when a
    category is retired, split or merged, or it would tell a blind rater how many of the others' labels used it."""

    done: int = 0
    total: int = 0
    round_done: int = 0
    round_total: int = 0


def progress_for(user, round: Round) -> Progress:
    # On every round trip: one row of sums, however many queues the round has (plain SQL, annotation.sql); the
    # reports sent back are read in the same statement, from their partial index.
    own_done, own_total, done, total, back = rows.fetch_one(
        sql.progress(), [user.pk, user.pk, round.pk, "", False, round.pk])
    return Progress(int(own_done), int(own_total), int(done) + int(back), int(total))


def sent_back(round: Round) -> dict[int, int]:
    """Per annotator, the reports a codebook change sent back to choose again and not yet re-chosen."""
    return dict(rows.fetch_all(sql.sent_back_per_annotator(), [round.pk, "", False]))


def label_of(user, round: Round, issue: Issue) -> Label | None:
    return Label.objects.filter(round=round, annotator=user, issue=issue).first()


def issues_in(study: Study, round: Round | None, user, *, query: str = "", mine: str = "",
              code: str = "", with_label_counts: bool = False, only_queue: bool = False) -> QuerySet[Issue]:
    """The study's reports, searched by title or number.

    `only_queue` keeps the reports of the user's queue in the round, if they have one there;
    `mine` = "done" | "todo" | "skipped" filters by the user's queue in the round; `code` keeps reports the
    user labeled with that type, theme or sub-theme code (or NR). Label counts are added only for those who
    may see every label (the blindness rule).
    """
    # Search text comes from the address bar: PostgreSQL refuses NUL, and nothing longer than a title matches.
    query, code = (text.replace("\x00", "")[:1000] for text in (query, code))
    issues = study.issues.select_related("source").order_by("created_at", "id")
    if query:
        issues = issues.filter(Q(title__icontains=query) | Q(number=query.lstrip("#")))
    if round is not None and only_queue:
        # With overlap k an annotator's reports are their queue; the rest would only answer "not yours".
        queue = Queue.objects.filter(round=round, annotator=user)
        if queue.exists():
            issues = issues.filter(assignments__queue__in=queue)
    if round is not None and mine in {"done", "todo", "skipped"}:
        queue = Assignment.objects.filter(queue__round=round, queue__annotator=user)
        queue = {"done": queue.filter(done=True), "todo": queue.filter(done=False),
                 "skipped": queue.filter(done=False, skipped=True)}[mine]
        issues = issues.filter(pk__in=queue.values("issue_id"))
    if round is not None and code:
        own = Label.objects.filter(round=round, annotator=user)
        own = own.filter(is_relevant=False) if code == NOT_RELEVANT else own.filter(
            Q(type__code=code) | Q(theme__code=code) | Q(sub_theme__code=code))
        issues = issues.filter(pk__in=own.values("issue_id"))
    if with_label_counts and round is not None:
        issues = issues.annotate(label_count=Count("labels", filter=Q(labels__round=round)))
    return issues


def own_labels_by_issue(user, round: Round, issues) -> dict[int, Label]:
    labels = Label.objects.filter(round=round, annotator=user, issue__in=list(issues))
    return {label.issue_id: label for label in labels.select_related("type", "theme", "sub_theme")}


def skips_by_issue(user, round: Round, issues) -> dict[int, str]:
    """Why the user skipped each of these reports (only those skipped and not labeled since)."""
    rows = Assignment.objects.filter(queue__round=round, queue__annotator=user, issue__in=list(issues),
                                     skipped=True, done=False)
    return dict(rows.values_list("issue_id", "skip_reason"))


def queued_ids(user, round: Round | None, issues) -> set[int]:
    """Which of these reports the user can label now: those of their queue in the round, while it is open."""
    if round is None or not round.is_open:
        return set()
    return set(Assignment.objects.filter(queue__round=round, queue__annotator=user, issue__in=list(issues))
               .values_list("issue_id", flat=True))

