"""The annotators' dashboard, for the lead and admins: who is fast, slow, stuck or drifting."""
from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.shortcuts import render
from django.views.decorators.http import require_GET

from concord.http import HtmxHttpRequest

from ..access import get_study_for
from ..permissions import can_manage_seeing_labels
from ..selectors.annotators import DAYS, annotator_rows
from ..selectors.studies import current_round


@login_required
@require_GET
def annotators(request: HtmxHttpRequest, study_id: int):
    study = get_study_for(request, study_id, can_manage_seeing_labels)
    round = current_round(study)
    rows = annotator_rows(request.user, study, round)
    peak = max((n for row in rows for _, n in row.per_day), default=0)
    return render(request, "annotation/annotators.html", {"study": study, "round": round, "rows": rows,
                                                          "days": DAYS, "peak": peak or 1})
