from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.shortcuts import render
from django.views.decorators.http import require_GET

from annotation.access import get_study_for
from annotation.permissions import can_view_agreement
from annotation.selectors import agreement_round, labeled_counts
from concord.http import HtmxHttpRequest

from .reports import study_agreement


@login_required
@require_GET
def study_agreement_page(request: HtmxHttpRequest, study_id: int):
    study = get_study_for(request, study_id, can_view_agreement)
    round = agreement_round(study)
    context = {"study": study, "round": round}
    if round is not None:
        context["agreement"] = study_agreement(round)
        context["members"] = labeled_counts(study, round)
        context["issue_count"] = study.issues.count()
    return render(request, "agreement/study_agreement.html", context)
