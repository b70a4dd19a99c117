from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from functools import cache

from django.db.models import Count, Exists, OuterRef, Q, QuerySet

from agreement.ties import modal_label
from concord import rows
from ingest.models import Issue, Source
from ingest.selectors import decisions as screening_decisions

from .models import NOT_RELEVANT, Assignment, Decision, Label, Membership, Queue, Round, Study
from .permissions import can_view_all_labels


def studies_for(user) -> QuerySet[Study]:
    studies = Study.objects.all() if user.is_staff else Study.objects.filter(memberships__user=user)
    # The list shows each study's codebook and round: fetched with it, not one query per study.
    return (studies.select_related("taxonomy", "current_round")
            .annotate(issue_count=Count("issues", distinct=True)).order_by("name"))


def current_round(study: Study) -> Round | None:
    """The open round, or the most recent one when all are closed."""
    round = study.current_round if study.current_round_id else None
    if round is None:
        rounds = study.rounds.order_by("-number")
        round = rounds.filter(closed_at__isnull=True).first() or rounds.first()
    if round is not None:
        round.study = study  # the caller's instance, with the role it was loaded with
    return round


def visible_labels(user, study: Study) -> QuerySet[Label]:
    """Every label the user may see in the study: all of them for the lead, only their own otherwise."""
    labels = Label.objects.filter(study=study).select_related(
        "issue__source", "annotator", "type", "theme", "sub_theme", "round"
    )
    return labels if can_view_all_labels(user, study) else labels.filter(annotator=user)


def counted_labels(labels: QuerySet[Label]) -> QuerySet[Label]:
    """The labels that count for agreement and final labels: all but those of a labeler who stopped labeling a
    round to see everyone's labels (issue 14: a rater who saw the others is not independent). Set-aside labels
    are kept, exported and in history."""
    stopped = Queue.objects.filter(round=OuterRef("round"), annotator=OuterRef("annotator"),
                                   stopped_at__isnull=False)
    return labels.exclude(Exists(stopped))


@dataclass(frozen=True)
class Rater:
    username: str
    role: str
    blind: bool
    set_aside: bool
    how: str


def raters(round: Round) -> list[Rater]:
    """Who labeled the round, and whether they labeled blind: annotators always; the lead when the study says
    the lead labels blind; a labeler who stopped to see everything is set aside."""
    study = round.study
    roles = dict(study.memberships.values_list("user_id", "role"))
    queues = {q.annotator_id: q for q in Queue.objects.filter(round=round)}
    labeled = (Label.objects.filter(round=round).order_by().values_list("annotator_id", "annotator__username")
               .distinct())
    people = []
    for user_id, username in sorted(labeled, key=lambda row: row[1]):
        role = roles.get(user_id, "")
        queue = queues.get(user_id)
        if queue is not None and queue.stopped_at is not None:
            people.append(Rater(username, role, False, True, f"stopped labeling on {queue.stopped_at:%Y-%m-%d} to "
                                                             "see everyone's labels: set aside"))
        elif role == Membership.Role.LEAD and round.kind == Round.Kind.INDEPENDENT and not study.lead_labels_blind:
            people.append(Rater(username, role, False, False, "the lead, not blind (the study let the lead see "
                                                              "every label while labeling)"))
        else:
            people.append(Rater(username, role, True, False, "blind"))
    return people


@cache
def _next_sql() -> str:
    # On every "next report" (see concord.rows). The queue's id as a scalar subquery, not a join: then the
    # planner walks the (queue, done, skipped, position) index in order and stops at the first row, instead of
    # sorting the whole remaining queue (8 ms at 40,000 reports, 0.1 ms so).
    return (f"SELECT {rows.columns(Assignment, 'a')}, {rows.columns(Issue, 'i')}, {rows.columns(Source, 'src')} "
            "FROM annotation_assignment a INNER JOIN ingest_issue i ON i.id = a.issue_id "
            "INNER JOIN ingest_source src ON src.id = i.source_id "
            "WHERE a.queue_id = (SELECT q.id FROM annotation_queue q WHERE q.round_id = %s AND q.annotator_id = %s) "
            "AND a.done = %s ORDER BY a.skipped, a.position LIMIT 1")


def next_assignment(user, round: Round) -> Assignment | None:
    """The first report of the user's queue not labeled yet; skipped reports come after all the others.
    One read of the queue's index, however long the queue."""
    row = rows.fetch_one(_next_sql(), [round.pk, user.pk, False])
    if row is None:
        return None
    assignment = rows.instance(Assignment, row)
    at = rows.width(Assignment)
    assignment.issue = rows.instance(Issue, row, at)
    assignment.issue.source = rows.instance(Source, row, at + rows.width(Issue))
    return assignment


def assignment_of(user, round: Round, issue_id: int) -> Assignment | None:
    return Assignment.objects.filter(queue__round=round, queue__annotator=user, issue_id=issue_id).first()


def neighbour(user, round: Round, position: int, before: bool = True) -> int | None:
    """The report just before (or after) `position` in the user's queue, for "previous" and "next"."""
    items = Assignment.objects.filter(queue__round=round, queue__annotator=user)
    if before:
        items = items.filter(position__lt=position).order_by("-position")
    else:
        items = items.filter(position__gt=position).order_by("position")
    return items.values_list("issue_id", flat=True).first()


@dataclass(frozen=True)
class Progress:
    """Counts only: one's own queue and the whole round's, never anyone's labels."""

    done: int = 0
    total: int = 0
    round_done: int = 0
    round_total: int = 0


def progress_for(user, round: Round) -> Progress:
    # On every round trip: one row of sums, however many queues the round has (plain SQL, see concord.rows).
    own_done, own_total, done, total = rows.fetch_one(
        "SELECT COALESCE(SUM(CASE WHEN annotator_id = %s THEN done END), 0), "
        "COALESCE(SUM(CASE WHEN annotator_id = %s THEN total END), 0), COALESCE(SUM(done), 0), "
        "COALESCE(SUM(total), 0) FROM annotation_queue WHERE round_id = %s", [user.pk, user.pk, round.pk])
    return Progress(int(own_done), int(own_total), int(done), int(total))


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


def agreement_round(study: Study) -> Round | None:
    """The round agreement is measured on: the latest independent round (not the pilot, which only the lead
    labels, nor the review, whose re-labels are not independent); before there is one, the current round."""
    round = study.rounds.filter(kind=Round.Kind.INDEPENDENT).order_by("-number").first()
    if round is not None:
        round.study = study
        return round
    return current_round(study)


def final_label_counts(study: Study) -> dict[str, int]:
    """How many final labels each way of reaching them gave (majority, consensus, lead, imported)."""
    return dict(Decision.objects.filter(study=study).order_by().values_list("method").annotate(n=Count("pk")))


def majority_types(source_ids) -> dict[int, str]:
    """Each labeled issue of these sources: its type by the majority of its labels' types in all studies (blank
    while tied), for the "by type" column of the admins' screening report. Read by source, not by a list of
    issue ids, which could pass the database's limit on parameters."""
    types: dict[int, list[str]] = defaultdict(list)
    for issue_id, name in Label.objects.filter(issue__source_id__in=source_ids, is_relevant=True).values_list(
        "issue_id", "type__name"
    ):
        types[issue_id].append(name)
    return {issue_id: modal_label(names) or "" for issue_id, names in types.items()}


def screening_verdicts(study: Study) -> dict[int, tuple[str, str]]:
    """Each report's screening verdict in its source (included, excluded, undecided) and why."""
    verdicts: dict[int, tuple[str, str]] = {}
    for source in Source.objects.filter(issues__studies=study).distinct():
        for issue_id, decision in screening_decisions(source).items():
            word = {True: "included", False: "excluded", None: "undecided"}[decision.included]
            verdicts[issue_id] = (word, decision.why)
    return verdicts


def labels_of_report(viewer, study, issue):
    """Every annotator's labels of one report outside the pilot, oldest round first: none while the blind rule
    hides other people's labels from `viewer` (an annotator, or a lead who labels, during the blind rounds)."""
    if not can_view_all_labels(viewer, study):
        return Label.objects.none()
    return (Label.objects.filter(study=study, issue=issue).exclude(round__kind=Round.Kind.PILOT)
            .select_related("annotator", "round", "type", "theme", "sub_theme")
            .order_by("round__number", "annotator__username"))
