"""The annotators' dashboard, for the lead and admins: who is fast, slow, stuck or drifting."""
from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.shortcuts import render
from django.views.decorators.http import require_GET

from concord.http import HtmxHttpRequest
from concord.ids import parse_id

from ..access import get_study_for
from ..models import Round
from ..permissions import can_manage_seeing_labels
from ..selectors.annotators import DAYS, annotator_rows
from ..selectors.studies import current_round


@login_required
@require_GET
def annotators(request: HtmxHttpRequest, study_id: int):
    study = get_study_for(request, study_id, can_manage_seeing_labels)
    rounds = list(study.rounds.order_by("number"))
    # Any round by its number; by default the independent round, where everyone labels (after it, the review
    # round holds the re-labels of a few tied reports only, and the pilot the lead's alone).
    wanted = parse_id(request.GET.get("round"))
    round = (next((r for r in rounds if r.number == wanted), None) if wanted is not None else
             next((r for r in rounds if r.kind == Round.Kind.INDEPENDENT), None) or current_round(study))
    rows = annotator_rows(request.user, study, round) if round is not None else []
    peak = max((n for row in rows for _, n in row.per_day), default=0)
    return render(request, "annotation/annotators.html", {"study": study, "round": round, "rounds": rounds,
                                                          "rows": rows, "days": DAYS, "peak": peak or 1})
