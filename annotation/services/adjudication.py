"""Final labels: majority where the votes settle, consensus where the review settled them, and the lead's
decision, with a rationale, where they still tie."""
from __future__ import annotations

from django.core.exceptions import PermissionDenied
from django.db import transaction
from django.db.models import Max
from django.utils import timezone

from stats.ties import final_label

from .. import sql
from ..models import NOT_RELEVANT, FinalLabel, Study, TiedReport
from ..permissions import can_manage
from ..selectors.votes import current_votes, machine_votes
from .labels import LabelError, LabelInput, _validated


def decision_version(decision: FinalLabel | None) -> str:
    """What a decision form was shown for: no decision yet, or the one made at that moment."""
    return decision.decided_at.isoformat() if decision is not None else "none"


@transaction.atomic
def decide(study: Study, user, issue_id: int, data: LabelInput, rationale: str,
           expected_version: str | None = None) -> FinalLabel:
    """The lead's final label for a report, with the reason; a second decision revises it (history keeps both).
    With `expected_version`, refused when the report's decision is no longer the one the form was shown for
    (a double click, or the lead and an admin deciding at once): a decision is never silently overwritten."""
    if not can_manage(user, study):
        raise PermissionDenied("Only the study's lead or an admin decides final labels.")
    # Decisions of one study queue up here, so the version read below cannot change before the write.
    study = Study.objects.select_for_update().get(pk=study.pk)
    if expected_version is not None:
        now = decision_version(FinalLabel.objects.filter(study=study, issue_id=issue_id).first())
        if now != expected_version:
            raise LabelError("decision", "this report's final label changed since the page was shown (a second "
                                         "click, or someone else deciding); nothing was changed. Look at it again.")
    if study.phase != Study.Phase.ADJUDICATION:
        raise LabelError("phase", "final labels are decided in the adjudication phase")
    if not study.issues.filter(pk=issue_id).exists():
        raise LabelError("issue", f"report {issue_id} is not part of {study}")
    if not rationale.strip():
        raise LabelError("rationale", "say why: the rationale is part of the record")
    round = study.current_round or study.rounds.order_by("-number").first()
    fields = _validated(round, data)
    votes = current_votes(study).get(issue_id, {})
    decision, _ = FinalLabel.objects.update_or_create(
        study=study, issue_id=issue_id,
        defaults={**fields, "method": FinalLabel.Method.LEAD, "rationale": rationale.strip(), "decided_by": user,
                  "support": None, "raters": len(votes) or None,
                  "machine_votes": machine_votes(votes)},
    )
    return decision


def finalize(study: Study) -> int:
    """Give every report without a decision its final label from the votes; returns how many were written.
    The caller has checked that no tie is left undecided."""
    decided = set(FinalLabel.objects.filter(study=study).values_list("issue_id", flat=True))
    reviewed = set(TiedReport.objects.filter(round__study=study).values_list("issue_id", flat=True))
    rows = []
    now = timezone.now()
    for issue_id, by in sorted(current_votes(study).items()):
        if issue_id in decided:
            continue
        settled = final_label(list(by.values()))
        if settled is None:
            raise LabelError("issue", f"report {issue_id} is still tied and has no decision")
        (type_id, theme_id, sub_id), support = settled
        relevant = type_id != NOT_RELEVANT
        method = FinalLabel.Method.CONSENSUS if issue_id in reviewed else FinalLabel.Method.MAJORITY
        rows.append((study.pk, issue_id, relevant, type_id if relevant else None, theme_id, sub_id, method,
                     support, len(by), machine_votes(by), "", now))
    before = FinalLabel.objects.aggregate(top=Max("pk"))["top"] or 0
    sql.insert_rows(FinalLabel, ["study_id", "issue_id", "is_relevant", "type_id", "theme_id", "sub_theme_id", "method",
                           "support", "raters", "machine_votes", "rationale", "decided_at"], rows)
    sql.record_history_of_new_rows(FinalLabel, "study", study.pk, before, "final label from the votes")
    return len(rows)
