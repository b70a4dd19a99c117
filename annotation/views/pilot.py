"""During the pilot the lead shapes the codebook freely while labeling (paper §4.2, DESIGN step 6)."""
from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.shortcuts import redirect
from django.utils.http import url_has_allowed_host_and_scheme
from django.views.decorators.http import require_POST

from concord.http import HtmxHttpRequest
from taxonomy.models import Category
from taxonomy.services import CodebookError, add_category

from ..access import get_study_for
from ..forms import CategoryForm
from ..models import Study
from ..permissions import is_lead


def add_pilot_category(user, study: Study, parent_id: int, name: str, definition: str) -> Category:
    if not is_lead(user, study):
        raise PermissionDenied("Only the study's lead shapes the codebook in the pilot.")
    if study.phase != Study.Phase.PILOT:
        raise CodebookError("phase: after the pilot the codebook grows only through a proposal every annotator "
                            "votes for")
    if study.taxonomy.studies.exclude(pk=study.pk).exists():
        raise CodebookError(f"codebook: {study.taxonomy} is shared with other studies; a study set up in "
                            "Concord gets its own copy")
    parent = Category.objects.filter(pk=parent_id, taxonomy=study.taxonomy).first()
    if parent is None:
        raise CodebookError(f"parent: no category with id {parent_id} in this study's codebook")
    return add_category(parent, name, definition)


@login_required
@require_POST
def category_add(request: HtmxHttpRequest, study_id: int):
    study = get_study_for(request, study_id)
    form = CategoryForm(request.POST)
    back = request.POST.get("next") or ""
    if not form.is_valid():
        messages.error(request, " ".join(e for errors in form.errors.values() for e in errors))
    else:
        try:
            category = add_pilot_category(request.user, study, form.cleaned_data["parent"], form.cleaned_data["name"],
                                          form.cleaned_data["definition"])
        except CodebookError as exc:
            messages.error(request, str(exc))
        else:
            messages.success(request, f"Added {category.code} {category.name} to the codebook.")
    if url_has_allowed_host_and_scheme(back, allowed_hosts={request.get_host()}, require_https=request.is_secure()):
        return redirect(back)
    return redirect("annotation:queue", study_id=study.pk)
