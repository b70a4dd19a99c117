"""The review round's discussion: comments on controversial reports."""
from __future__ import annotations

from django.core.exceptions import PermissionDenied

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
    return Comment.objects.create(study=study, round=round, issue_id=issue_id, author=user, body=body)
