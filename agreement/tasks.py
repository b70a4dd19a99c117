from __future__ import annotations

from celery import shared_task

from annotation.models import Round

from .services import snapshot


@shared_task
def compute_agreement_task(round_id: int, level: str = "theme") -> dict:
    """Agreement for one round off the request cycle (large studies); kept as a dashboard snapshot."""
    return snapshot(Round.objects.select_related("study__taxonomy").get(pk=round_id), level).figures
