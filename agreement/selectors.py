"""Stored agreement snapshots. Their figures come from everyone's labels, so they are read through the blind
rule: nothing for a viewer who may not see agreement yet (annotation.permissions.can_view_agreement)."""
from __future__ import annotations

from annotation.permissions import can_view_agreement

from .models import AgreementSnapshot, Plan


def _snapshots(viewer, study, level: str):
    if not can_view_agreement(viewer, study):
        return AgreementSnapshot.objects.none()
    return AgreementSnapshot.objects.filter(study=study, level=level)


def latest(viewer, study, level: str) -> AgreementSnapshot | None:
    return _snapshots(viewer, study, level).order_by("-computed_at", "-id").first()


def history(viewer, study, level: str) -> list[AgreementSnapshot]:
    return list(_snapshots(viewer, study, level).order_by("computed_at", "id"))


def latest_plan(viewer, study, round, level: str) -> Plan | None:
    """The planner's latest simulations of the round at `level`, behind the same rule as the figures."""
    if not can_view_agreement(viewer, study):
        return None
    return Plan.objects.filter(round=round, level=level).order_by("-computed_at", "-id").first()
