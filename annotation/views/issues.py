"""The study's reports as a list: search, what you labeled, a way back to any report."""
from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.core.paginator import Paginator
from django.http import Http404
from django.shortcuts import render
from django.views.decorators.http import require_GET

from concord.http import HtmxHttpRequest

from ..access import get_study_for
from ..models import FinalLabel
from ..permissions import can_manage, can_view_all_labels, can_view_history
from ..selectors.labels import visible_labels
from ..selectors.queue import issues_in, own_labels_by_issue, queued_ids, skips_by_issue
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
        # Each title leads where it works for this person: the labeling page for a report of their open queue,
        # else the report's read-only page.
        "queued": queued_ids(request.user, round, page.object_list),
    }
    template = "annotation/issue_list.html#results" if request.htmx else "annotation/issue_list.html"
    return render(request, template, context)


@login_required
@require_GET
def report(request: HtmxHttpRequest, study_id: int, issue_id: int):
    """One report read-only, with every label the viewer may see (all of them outside the blind rule, else their
    own) and its final label: what a lead opens from the list after the blind round, or anyone once a round has
    closed."""
    study = get_study_for(request, study_id)
    issue = study.issues.select_related("source").filter(pk=issue_id).first()
    sees_all = can_view_all_labels(request.user, study)
    # Any member may read any report of the study (its text tells nothing of anyone's label); which labels they
    # see is the blind rule's (visible_labels).
    if issue is None:
        raise Http404("No such report in this study.")
    round = current_round(study)
    context = {
        "study": study, "issue": issue, "sees_all": sees_all,
        "labels": visible_labels(request.user, study).filter(issue=issue).order_by("round__number",
                                                                                   "annotator__username"),
        "decision": FinalLabel.objects.filter(study=study, issue=issue).select_related(
            "type", "theme", "sub_theme").first() if sees_all else None,
        "can_label": issue.pk in queued_ids(request.user, round, [issue.pk]),
        "can_view_history": can_view_history(request.user, study),
    }
    return render(request, "annotation/report.html", context)
