"""Reads of the seats machines took in people's places."""
from __future__ import annotations

from django.db.models import Count

from ..models import Round, Seat


def standing_seats(round: Round) -> list[dict]:
    """Who stands in whose seat in the round, on how many reports: what the figures with machines add."""
    return [{"machine": seat.machine, "in_seat_of": seat.annotator.username, "level": seat.level,
             "reports": seat.n}
            for seat in Seat.objects.filter(round=round, given_back_at__isnull=True).select_related("annotator")
            .annotate(n=Count("labels")).order_by("pk")]
