from __future__ import annotations

from django.db.models import Count, Q, QuerySet

from ingest.models import Issue

from .models import Label, Membership, Round, Study
from .permissions import can_view_all_labels


def studies_for(user) -> QuerySet[Study]:
    studies = Study.objects.all() if user.is_staff else Study.objects.filter(memberships__user=user)
    return studies.annotate(issue_count=Count("issues", distinct=True)).order_by("name")


def current_round(study: Study) -> Round | None:
    """The open round, or the most recent one when all are closed."""
    rounds = study.rounds.order_by("-number")
    return rounds.filter(closed_at__isnull=True).first() or rounds.first()


def visible_labels(user, study: Study) -> QuerySet[Label]:
    """Every label the user may see in the study: all of them for the lead, only their own otherwise."""
    labels = Label.objects.filter(study=study).select_related(
        "issue__source", "annotator", "type", "theme", "sub_theme", "round"
    )
    return labels if can_view_all_labels(user, study) else labels.filter(annotator=user)


def next_issue_for(user, round: Round, skipped: list[int] = ()) -> Issue | None:
    """The first report of the study the user has not labeled in this round; skipped ones come last."""
    # A subquery, not exclude(labels__round=…, labels__annotator=…): across a multi-valued relation
    # exclude() may match the two conditions on different labels.
    labeled = Label.objects.filter(round=round, annotator=user).values("issue_id")
    remaining = (
        round.study.issues.exclude(pk__in=labeled)
        .select_related("source")
        .order_by("created_at", "id")
    )
    return remaining.exclude(id__in=list(skipped)).first() or remaining.first()


def progress_for(user, round: Round) -> tuple[int, int]:
    """(reports this user has labeled in the round, reports in the study)."""
    done = Label.objects.filter(round=round, annotator=user).count()
    return done, round.study.issues.count()


def label_of(user, round: Round, issue: Issue) -> Label | None:
    return Label.objects.filter(round=round, annotator=user, issue=issue).first()


def issues_in(study: Study, round: Round | None, user, *, query: str = "", mine: str = "",
              with_label_counts: bool = False) -> QuerySet[Issue]:
    """The study's reports, searched by title or number; `mine` = "done" | "todo" filters by the user's labels.

    Label counts are added only for those who may see every label (the blindness rule).
    """
    issues = study.issues.select_related("source").order_by("created_at", "id")
    if query:
        issues = issues.filter(Q(title__icontains=query) | Q(number=query.lstrip("#")))
    if round is not None and mine in {"done", "todo"}:
        labeled = Label.objects.filter(round=round, annotator=user).values("issue_id")
        issues = issues.filter(pk__in=labeled) if mine == "done" else issues.exclude(pk__in=labeled)
    if with_label_counts and round is not None:
        issues = issues.annotate(label_count=Count("labels", filter=Q(labels__round=round)))
    return issues


def own_labels_by_issue(user, round: Round, issues) -> dict[int, Label]:
    labels = Label.objects.filter(round=round, annotator=user, issue__in=list(issues))
    return {label.issue_id: label for label in labels.select_related("type", "theme", "sub_theme")}


def annotators_of(study: Study):
    return study.memberships.select_related("user").order_by("user__username")


def labeled_counts(study: Study, round: Round) -> QuerySet:
    """Per member, how many reports they labeled in the round (for the lead only)."""
    return Membership.objects.filter(study=study).annotate(
        labeled=Count("user__labels", filter=Q(user__labels__round=round))
    ).select_related("user")
