"""During the pilot the lead shapes the codebook freely while labeling (paper §4.2, DESIGN step 6)."""
from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.shortcuts import redirect
from django.utils.http import url_has_allowed_host_and_scheme
from django.views.decorators.http import require_POST

from concord.http import HtmxHttpRequest
from taxonomy.changes import add_in_pilot
from taxonomy.services import CodebookError

from ..access import get_study_for
from ..forms import CategoryForm


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
            category = add_in_pilot(study, request.user, form.cleaned_data["parent"], form.cleaned_data["name"],
                                    form.cleaned_data["definition"], expected_revision=form.cleaned_data["revision"])
        except CodebookError as exc:
            messages.error(request, str(exc))
        else:
            messages.success(request, f"Added {category.code} {category.name} to the codebook.")
    if url_has_allowed_host_and_scheme(back, allowed_hosts={request.get_host()}, require_https=request.is_secure()):
        return redirect(back)
    return redirect("annotation:queue", study_id=study.pk)
