from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.shortcuts import render
from django.utils.text import slugify
from django.views.decorators.http import require_GET

from concord.csv_stream import csv_response
from concord.http import HtmxHttpRequest

from ..access import get_study_for
from ..exports import label_csv_rows
from ..permissions import can_export, can_view_agreement, role_in
from ..selectors import current_round, progress_for, studies_for


@login_required
@require_GET
def study_list(request: HtmxHttpRequest):
    rows = []
    for study in studies_for(request.user):
        round = current_round(study)
        rows.append({
            "study": study,
            "role": role_in(request.user, study),
            "round": round,
            "progress": progress_for(request.user, round) if round and role_in(request.user, study) else None,
            "can_see_agreement": can_view_agreement(request.user, study),
        })
    return render(request, "annotation/study_list.html", {"rows": rows})


@login_required
@require_GET
def study_export_csv(request: HtmxHttpRequest, study_id: int):
    study = get_study_for(request, study_id, can_export)
    return csv_response(label_csv_rows(study), f"{slugify(study.name)}-labels.csv")
