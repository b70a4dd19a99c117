from __future__ import annotations

from celery import shared_task


@shared_task
def compute_agreement_task(round_id: int) -> dict:
    """Agreement for one round, off the request cycle (large studies)."""
    from annotation.models import Round

    from .reports import agreement_figures, study_agreement

    return agreement_figures(study_agreement(Round.objects.select_related("study__taxonomy").get(pk=round_id)))
