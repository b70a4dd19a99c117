"""A study's codebook page (the tree, searched), its files, and the curated details of a category."""
from __future__ import annotations

from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.text import slugify
from django.views.decorators.http import require_GET, require_http_methods

from annotation.access import get_study_for
from annotation.permissions import can_manage, can_view_all_labels
from concord.csv_stream import csv_response
from concord.errors import FieldError, form_refusal
from concord.http import HtmxHttpRequest
from interviews.selectors import quote_of
from taxonomy.exports import to_json, to_markdown, to_qdc
from taxonomy.models import Category
from taxonomy.services import CodebookError

from ..exports import details_rows
from ..forms import ChangeForm, DetailForm
from ..models import Proposal
from ..selectors import label_counts, notes_for, reports_numbered, searched_tree
from ..services.details import add_detail, remove_detail


@login_required
@require_GET
def codebook(request: HtmxHttpRequest, study_id: int):
    study = get_study_for(request, study_id)
    query = request.GET.get("q", "").strip()
    context = {
        "study": study, "query": query, "with_retired": bool(request.GET.get("retired")),
        "types": searched_tree(study, query, bool(request.GET.get("retired"))),
        "counts": label_counts(request.user, study),
        "manages": can_manage(request.user, study), "change_form": ChangeForm(), "second_languages": settings.LANGUAGES,
        "quote": quote_of(study, request.GET.get("quote", "")),
        "open_proposals": study.proposals.filter(status=Proposal.Status.OPEN).count(),
    }
    return render(request, "codebook/codebook.html", context)


EXPORTS = {
    "json": ("application/json", "json"),
    "md": ("text/markdown; charset=utf-8", "md"),
    "qdc": ("application/xml", "qdc"),
}


@login_required
@require_GET
def export(request: HtmxHttpRequest, study_id: int, fmt: str):
    study = get_study_for(request, study_id)
    if fmt not in EXPORTS:
        raise Http404("No such format.")
    body = {"json": to_json, "md": to_markdown, "qdc": to_qdc}[fmt](study.codebook)
    content_type, extension = EXPORTS[fmt]
    response = HttpResponse(body, content_type=content_type)
    name = f"{slugify(study.name)}-codebook-r{study.codebook.revision}.{extension}"
    response["Content-Disposition"] = f'attachment; filename="{name}"'
    return response


@login_required
@require_http_methods(["GET", "POST"])
def details(request: HtmxHttpRequest, study_id: int, category_id: int):
    """The notes annotators wrote with labels of this category, and the lead's curated short list."""
    study = get_study_for(request, study_id)
    category = get_object_or_404(Category, pk=category_id, codebook=study.codebook)
    # Curated details come from annotators' notes and name the reports that carried them: the blind rule applies
    # to reading them, and curating needs the notes in view.
    sees_labels = can_view_all_labels(request.user, study)
    manages = can_manage(request.user, study) and sees_labels
    if request.method == "POST":
        if not manages:
            raise PermissionDenied
        form = DetailForm(request.POST)
        try:
            if not form.is_valid():
                raise form_refusal(form)
            if form.cleaned_data["remove"]:
                remove_detail(study, request.user, form.cleaned_data["remove"])
            else:
                add_detail(study, request.user, category, form.cleaned_data["text"],
                           reports_numbered(study, form.cleaned_data["examples"]))
        except (CodebookError, FieldError) as exc:
            messages.error(request, str(exc))
        return redirect("codebook:details", study_id=study.pk, category_id=category.pk)
    context = {
        "study": study, "category": category, "manages": manages,
        "curated": category.details.prefetch_related("examples__source") if sees_labels else None,
        # Others' notes reveal their labels: only for those the blind rule lets see labels.
        "notes": notes_for(request.user, study, category),
    }
    return render(request, "codebook/details.html", context)


@login_required
@require_GET
def details_csv(request: HtmxHttpRequest, study_id: int):
    study = get_study_for(request, study_id, can_view_all_labels)
    return csv_response(details_rows(study.codebook), f"{slugify(study.name)}-explanatory-details.csv")
