"""The study's reports as a list: search, what you labeled, a way back to any report."""
from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.core.paginator import Paginator
from django.shortcuts import render
from django.views.decorators.http import require_GET

from concord.http import HtmxHttpRequest

from ..access import get_study_for
from ..permissions import can_manage, can_view_all_labels
from ..selectors.queue import issues_in, own_labels_by_issue, skips_by_issue
from ..selectors.studies import current_round

PAGE_SIZE = 50


@login_required
@require_GET
def issue_list(request: HtmxHttpRequest, study_id: int):
    study = get_study_for(request, study_id)
    round = current_round(study)
    query = request.GET.get("q", "").strip()
    mine = request.GET.get("mine", "")
    code = request.GET.get("code", "").strip()
    sees_all = can_view_all_labels(request.user, study)
    issues = issues_in(study, round, request.user, query=query, mine=mine, code=code, with_label_counts=sees_all,
                       only_queue=not can_manage(request.user, study))
    page = Paginator(issues, PAGE_SIZE).get_page(request.GET.get("page"))
    context = {
        "study": study, "round": round, "page": page, "query": query, "mine": mine, "code": code,
        "sees_all": sees_all, "skips": skips_by_issue(request.user, round, page.object_list) if round else {},
        "own_labels": own_labels_by_issue(request.user, round, page.object_list) if round else {},
    }
    template = "annotation/issue_list.html#results" if request.htmx else "annotation/issue_list.html"
    return render(request, template, context)
