from __future__ import annotations

from celery import shared_task
from django.contrib.auth import get_user_model

from annotation.models import Round
from concord import apart


@shared_task
def compute_agreement_task(round_id: int, level: str = "theme", by_id: int | None = None) -> dict:
    """Agreement for one round off the request cycle; kept as a dashboard snapshot."""
    return apart.call("agreement.tasks.compute", round_id, level, by_id)


def compute(round_id: int, level: str, by_id: int | None) -> dict:
    """The task's work, in the process concord.apart runs it in."""
    from .services import computed, snapshot  # deferred: the statistics, for the child process only

    round = Round.objects.select_related("study__taxonomy").get(pk=round_id)
    try:
        by = get_user_model().objects.filter(pk=by_id).first() if by_id else None
        return snapshot(round, level, by=by).figures
    finally:
        computed(round, level)


@shared_task
def compute_plan_task(round_id: int, level: str = "theme") -> None:
    """The planner's simulations for one round off the request cycle; kept for the planner page."""
    apart.call("agreement.tasks.compute_plan", round_id, level)


def compute_plan(round_id: int, level: str) -> None:
    """The task's work, in the process concord.apart runs it in."""
    from .services import plan_snapshot, planned  # deferred: the statistics, for the child process only

    round = Round.objects.select_related("study__taxonomy").get(pk=round_id)
    try:
        plan_snapshot(round, level)
    finally:
        planned(round, level)
