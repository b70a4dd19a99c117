"""The review round's discussion: comments on controversial reports."""
from __future__ import annotations

from django.contrib.auth import get_user_model
from django.core.exceptions import PermissionDenied
from django.urls import reverse

from accounts import notices
from ingest.models import Issue

from ..models import Comment, Round, TiedReport
from ..permissions import can_label
from .labels import LabelError

# The longest comment, in the form, the API and here: a thread is read on a page, not a place for files.
COMMENT_MAX_CHARS = 10_000


def post_comment(user, round: Round, issue_id: int, body: str) -> Comment:
    study = round.study
    if not can_label(user, study):
        raise PermissionDenied("Only members of the study take part in its review.")
    if round.kind != Round.Kind.REVIEW or not round.is_open:
        raise LabelError("round", "comments are written in an open review round")
    if not TiedReport.objects.filter(round=round, issue_id=issue_id).exists():
        raise LabelError("issue", f"report {issue_id} is not under review in round {round.number}")
    body = body.strip()
    if not body:
        raise LabelError("body", "write something before posting")
    if len(body) > COMMENT_MAX_CHARS:
        raise LabelError("body", f"at most {COMMENT_MAX_CHARS:,} characters, not {len(body):,}")
    comment = Comment.objects.create(study=study, round=round, issue_id=issue_id, author=user, body=body)
    # Those who labeled the report hear of it (never what was said: the page shows that, to whoever may see it).
    labeled = get_user_model().objects.filter(labels__study=study, labels__issue_id=issue_id, is_active=True) \
        .exclude(pk=user.pk).distinct()
    issue = Issue.objects.select_related("source").get(pk=issue_id)
    notices.notify(labeled, "comment", f"comment:{study.pk}:{issue_id}",
                   {"author": user.username, "report": f"{issue.source} #{issue.number}", "study": study.name},
                   url=reverse("annotation:issue_label", args=[study.pk, issue_id]), study_id=study.pk)
    return comment
