"""The lead's changes to a study's codebook (after the pilot with a reason, each a new revision) and the change
log; during the pilot, new categories straight from the labeling page."""
from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.http import HttpResponseRedirect
from django.shortcuts import redirect, render
from django.utils.http import url_has_allowed_host_and_scheme
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from annotation.access import get_study_for
from annotation.permissions import can_manage, can_manage_seeing_labels, can_view_all_labels
from concord.http import HtmxHttpRequest
from interviews.selectors import quote_of
from taxonomy.languages import SECOND
from taxonomy.services import CodebookError

from ..forms import CategoryForm, ChangeForm, InstructionsForm
from ..selectors import report_ids
from ..services import changes


@login_required
@require_POST
def change(request: HtmxHttpRequest, study_id: int, category_id: int):
    study = get_study_for(request, study_id, can_manage)
    form = ChangeForm(request.POST)
    if not form.is_valid():
        messages.error(request, " ".join(e for errors in form.errors.values() for e in errors))
        return redirect("codebook:codebook", study_id=study.pk)
    data, reason = form.cleaned_data, form.cleaned_data["reason"]
    quote = quote_of(study, request.POST.get("quote", ""))
    expected = {"quote": quote, "expected_revision": data["revision"]}
    try:
        if data["kind"] == "rename":
            changes.rename(study, request.user, category_id, data["name"], reason, **expected)
        elif data["kind"] == "clarify":
            changes.clarify(study, request.user, category_id, reason, definition=data["definition"],
                            inclusion=data["inclusion"], exclusion=data["exclusion"], **expected)
        elif data["kind"] == "split":
            changes.split(study, request.user, category_id, data["parts"], reason, **expected)
        elif data["kind"] == "merge":
            codes = data["others"]
            others = list(study.codebook.categories.filter(code__in=codes).values_list("pk", flat=True))
            if len(others) != len(codes):
                raise CodebookError("others", "some of those codes are not in this codebook")
            changes.merge(study, request.user, [category_id, *others], data["name"], data["definition"], reason,
                          **expected)
        elif data["kind"] == "translate":
            changes.translate(study, request.user, category_id, reason, language=data["second_language"],
                              texts={field: data[field] for field in SECOND}, **expected)
        else:
            changes.retire(study, request.user, category_id, reason, **expected)
    except CodebookError as exc:
        messages.error(request, str(exc))
    else:
        messages.success(request, "The codebook changed; the change log has the new revision.")
    return redirect("codebook:codebook", study_id=study.pk)


@login_required
@require_http_methods(["GET", "POST"])
def instructions(request: HtmxHttpRequest, study_id: int):
    """The study's instructions to annotators: every member reads them here; the lead changes them."""
    study = get_study_for(request, study_id)
    codebook = study.codebook
    manages = can_manage(request.user, study)
    form = InstructionsForm(request.POST or None, initial={"instructions": codebook.instructions,
                                                           "revision": codebook.revision})
    if request.method == "POST":
        if not manages:
            raise PermissionDenied
        if form.is_valid():
            data = form.cleaned_data
            try:
                changes.set_instructions(study, request.user, data["instructions"], data["reason"],
                                         expected_revision=data["revision"])
            except CodebookError as exc:
                exc.add_to(form)
            else:
                messages.success(request, "The instructions changed; annotators see them on their next visit.")
                return redirect("codebook:instructions", study_id=study.pk)
    return render(request, "codebook/instructions.html", {"study": study, "form": form, "manages": manages},
                  status=400 if form.errors else 200)


@login_required
@require_GET
def changelog(request: HtmxHttpRequest, study_id: int):
    study = get_study_for(request, study_id)
    entries = study.codebook.changes.select_related("made_by", "proposal", "quote__session__participant").order_by(
        "revision")
    interviews = request.GET.get("evidence") == "interviews"
    if interviews:
        # The study's Table 2: modifications from interview results.
        entries = entries.filter(quote__isnull=False) | entries.filter(proposal__quote__isnull=False)
    entries = list(entries)
    sees_labels = can_view_all_labels(request.user, study)
    if sees_labels:
        # A clarification's example reports, linked by their names (its evidence keeps no ids).
        ids = report_ids(study, [x["ref"] for e in entries for x in e.evidence.get("examples", [])])
        for e in entries:
            e.examples = [(x["ref"], ids.get(x["ref"])) for x in e.evidence.get("examples", [])]
    # How many labels a change sent back counts other people's labels of a category: the blind rule applies.
    return render(request, "codebook/changelog.html", {"study": study, "entries": entries, "interviews": interviews,
                                                       "sees_labels": sees_labels,
                                                       "manages_seeing": can_manage_seeing_labels(request.user, study)})


@login_required
@require_POST
def pilot_category_add(request: HtmxHttpRequest, study_id: int):
    """During the pilot the lead shapes the codebook freely while labeling (paper §4.2)."""
    study = get_study_for(request, study_id)
    form = CategoryForm(request.POST)
    back = request.POST.get("next") or ""
    if not form.is_valid():
        messages.error(request, " ".join(e for errors in form.errors.values() for e in errors))
    else:
        try:
            category = changes.add_in_pilot(study, request.user, form.cleaned_data["parent"], form.cleaned_data["name"],
                                    form.cleaned_data["definition"], expected_revision=form.cleaned_data["revision"])
        except CodebookError as exc:
            messages.error(request, str(exc))
        else:
            messages.success(request, f"Added {category.code} {category.name} to the codebook.")
    # A path of this site only: anything else ("-1", a URL name, another host) goes to the queue, never to
    # redirect(), which would take a bare word for the name of a URL.
    if back.startswith("/") and url_has_allowed_host_and_scheme(back, allowed_hosts={request.get_host()},
                                                                 require_https=request.is_secure()):
        return HttpResponseRedirect(back)
    return redirect("annotation:queue", study_id=study.pk)
