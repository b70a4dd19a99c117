"""Final labels (the votes' majority or consensus, the lead's decisions): how many each way gave, and the lead's
decisions for the adjudication pages, which only those who may see every label open."""
from __future__ import annotations

from django.db.models import Count, QuerySet

from ..models import FinalLabel, Study
from ..permissions import can_view_all_labels


def final_label_counts(study: Study) -> dict[str, int]:
    """How many final labels each way of reaching them gave (majority, consensus, lead, imported)."""
    return dict(FinalLabel.objects.filter(study=study).order_by().values_list("method").annotate(n=Count("pk")))


def lead_decisions(viewer, study: Study) -> QuerySet[FinalLabel]:
    """The lead's decisions, newest first; none for a viewer the blind rule keeps from everyone's labels."""
    if not can_view_all_labels(viewer, study):
        return FinalLabel.objects.none()
    return (FinalLabel.objects.filter(study=study, method=FinalLabel.Method.LEAD)
            .select_related("issue__source", "type", "theme", "sub_theme", "decided_by").order_by("-decided_at"))


def final_label_of(viewer, study: Study, issue) -> FinalLabel | None:
    if not can_view_all_labels(viewer, study):
        return None
    return FinalLabel.objects.filter(study=study, issue=issue).first()
