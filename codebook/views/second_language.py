"""A codebook's second language as one file: every member may download it (the codebook's texts, which they
read anyway); the lead uploads it back as one change with a reason."""
from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpResponse
from django.shortcuts import redirect
from django.utils.text import slugify
from django.views.decorators.http import require_GET, require_POST

from annotation.access import get_study_for
from annotation.permissions import can_manage
from concord.http import HtmxHttpRequest
from taxonomy.second_file import MAX_BYTES, SecondFileError, read_csv, to_csv
from taxonomy.services import CodebookError

from ..forms import SecondLanguageFileForm
from ..services.translations import translate_all


@login_required
@require_GET
def download(request: HtmxHttpRequest, study_id: int):
    study = get_study_for(request, study_id)
    response = HttpResponse(to_csv(study.codebook).encode("utf-8-sig"), content_type="text/csv; charset=utf-8")
    name = f"{slugify(study.name)}-codebook-r{study.codebook.revision}-second-language.csv"
    response["Content-Disposition"] = f'attachment; filename="{name}"'
    return response


@login_required
@require_POST
def upload(request: HtmxHttpRequest, study_id: int):
    study = get_study_for(request, study_id, can_manage)
    form = SecondLanguageFileForm(request.POST, request.FILES)
    if not form.is_valid():
        messages.error(request, " ".join(f"{field}: {e}" for field, errors in form.errors.items() for e in errors))
        return redirect("codebook:codebook", study_id=study.pk)
    uploaded, data = form.cleaned_data["file"], form.cleaned_data
    name = uploaded.name[:100]
    try:
        if uploaded.size > MAX_BYTES:
            raise SecondFileError(f"{name}: {uploaded.size:,} bytes; at most {MAX_BYTES:,}")
        translation = read_csv(uploaded.read(), name)
        changed = translate_all(study, request.user, translation, data["reason"], name=name,
                                expected_revision=data["revision"])
    except (SecondFileError, CodebookError) as exc:
        messages.error(request, str(exc))
    else:
        messages.success(request, f"The codebook's second language ({translation.language}) changed on {changed} "
                                  f"categories; the change log has the new revision.")
    return redirect("codebook:codebook", study_id=study.pk)
