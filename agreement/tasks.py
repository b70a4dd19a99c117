from __future__ import annotations

from celery import shared_task
from django.contrib.auth import get_user_model

from annotation.models import Round

from .services import computed, snapshot


@shared_task
def compute_agreement_task(round_id: int, level: str = "theme", by_id: int | None = None) -> dict:
    """Agreement for one round off the request cycle; kept as a dashboard snapshot."""
    round = Round.objects.select_related("study__taxonomy").get(pk=round_id)
    try:
        by = get_user_model().objects.filter(pk=by_id).first() if by_id else None
        return snapshot(round, level, by=by).figures
    finally:
        computed(round, level)
