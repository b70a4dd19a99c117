"""Every change to every label of a study, for the lead: who, when, before, after."""
from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.core.paginator import Paginator
from django.shortcuts import render
from django.utils.text import slugify
from django.views.decorators.http import require_GET

from concord.audit import record as audit
from concord.csv_stream import csv_response
from concord.http import HtmxHttpRequest
from concord.ids import parse_id

from ..access import get_study_for
from ..exports.history import history_csv_rows
from ..permissions import can_view_history
from ..selectors.history import label_changes


@login_required
@require_GET
def history(request: HtmxHttpRequest, study_id: int):
    study = get_study_for(request, study_id, can_view_history)
    issue = request.GET.get("issue", "")
    changes = label_changes(request.user, study, issue_id=parse_id(issue))
    page = Paginator(changes, 100).get_page(request.GET.get("page"))
    return render(request, "annotation/history.html", {"study": study, "page": page, "issue": issue})


@login_required
@require_GET
def history_csv(request: HtmxHttpRequest, study_id: int):
    study = get_study_for(request, study_id, can_view_history)
    audit("export", request.user, study, what="label history csv")
    return csv_response(history_csv_rows(request.user, study), f"{slugify(study.name)}-label-history.csv")



