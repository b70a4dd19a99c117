"""The labeling screen: the annotator's next report, summary first, and the label form."""
from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.http import Http404
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_GET, require_POST

from concord.http import HtmxHttpRequest
from ingest.services.summaries import summary_for_display
from taxonomy.models import Category
from taxonomy.selectors import children_of, types_of

from ..access import get_study_for
from ..forms import NOT_RELEVANT_CHOICE, LabelForm
from ..permissions import can_label
from ..selectors import current_round, label_of, next_issue_for, progress_for
from ..services.labels import LabelError, submit_label

SKIPPED_KEY = "skipped_issues"


def _skipped(request, round) -> list[int]:
    return request.session.get(SKIPPED_KEY, {}).get(str(round.pk), [])


def _choice_context(study, type_value: str | None, theme_id: int | None) -> dict:
    """The narrowing choices: themes of the chosen type, sub-themes of the chosen theme."""
    taxonomy = study.taxonomy
    type_ = None
    if type_value and type_value.isdigit():
        type_ = Category.objects.filter(pk=type_value, taxonomy=taxonomy, level=Category.Level.TYPE).first()
    theme = None
    if type_ and theme_id:
        theme = Category.objects.filter(pk=theme_id, parent=type_).first()
    return {
        "study": study,
        "types": types_of(taxonomy),
        "chosen_type": type_value or "",
        "themes": children_of(type_),
        "chosen_theme": theme.pk if theme else None,
        "sub_themes": children_of(theme),
        "not_relevant": NOT_RELEVANT_CHOICE,
    }


def _workspace_context(request, study, round, issue, label=None, form=None, error: str = "") -> dict:
    if form is not None and form.is_bound:
        initial = {k: form.data.get(k, "") for k in ("type", "theme", "sub_theme", "note")}
    elif label is not None:
        initial = {
            "type": NOT_RELEVANT_CHOICE if not label.is_relevant else str(label.type_id),
            "theme": label.theme_id, "sub_theme": label.sub_theme_id, "note": label.note,
        }
    else:
        initial = {}
    theme = initial.get("theme")
    context = _choice_context(study, str(initial.get("type") or ""), int(theme) if str(theme or "").isdigit() else None)
    done, total = progress_for(request.user, round)
    context.update({
        "study": study, "round": round, "issue": issue, "label": label, "error": error,
        "summary": summary_for_display(issue) if issue else "",
        "initial": initial, "done": done, "total": total,
        "chosen_sub_theme": int(initial["sub_theme"]) if str(initial.get("sub_theme") or "").isdigit() else None,
    })
    return context


def _open_round_for(request, study_id: int):
    study = get_study_for(request, study_id, can_label)
    round = current_round(study)
    if round is None:
        raise Http404("This study has no round yet.")
    return study, round


def _render_next(request: HtmxHttpRequest, study, round):
    issue = next_issue_for(request.user, round, _skipped(request, round)) if round.is_open else None
    context = _workspace_context(request, study, round, issue)
    template = "annotation/queue.html#workspace" if request.htmx else "annotation/queue.html"
    return render(request, template, context)


@login_required
@require_GET
def queue(request: HtmxHttpRequest, study_id: int):
    study, round = _open_round_for(request, study_id)
    return _render_next(request, study, round)


@login_required
@require_GET
def issue_label(request: HtmxHttpRequest, study_id: int, issue_id: int):
    """One report, for revising a label already given (or labeling out of queue order)."""
    study, round = _open_round_for(request, study_id)
    issue = get_object_or_404(study.issues.select_related("source"), pk=issue_id)
    context = _workspace_context(request, study, round, issue, label=label_of(request.user, round, issue))
    return render(request, "annotation/queue.html", context)


@login_required
@require_GET
def label_choices(request: HtmxHttpRequest, study_id: int):
    study = get_study_for(request, study_id, can_label)
    theme = request.GET.get("theme", "")
    context = _choice_context(study, request.GET.get("type"), int(theme) if theme.isdigit() else None)
    return render(request, "annotation/queue.html#choices", context)


@login_required
@require_POST
def label_submit(request: HtmxHttpRequest, study_id: int, issue_id: int):
    study, round = _open_round_for(request, study_id)
    issue = get_object_or_404(study.issues.select_related("source"), pk=issue_id)
    form = LabelForm(request.POST)
    error = ""
    if form.is_valid():
        try:
            submit_label(request.user, round, issue, form.to_input())
        except LabelError as exc:
            error = exc.message
        else:
            skipped = request.session.get(SKIPPED_KEY, {})
            if issue.pk in skipped.get(str(round.pk), []):
                skipped[str(round.pk)].remove(issue.pk)
                request.session[SKIPPED_KEY] = skipped
            if request.htmx:
                return _render_next(request, study, round)
            return redirect("annotation:queue", study_id=study.pk)
    else:
        error = " ".join(e for errors in form.errors.values() for e in errors)
    context = _workspace_context(request, study, round, issue, label_of(request.user, round, issue), form, error)
    # htmx swaps only 2xx answers by default, so the form with its message comes back as 200 there.
    template = "annotation/queue.html#workspace" if request.htmx else "annotation/queue.html"
    return render(request, template, context, status=200 if request.htmx else 400)


@login_required
@require_POST
def label_skip(request: HtmxHttpRequest, study_id: int, issue_id: int):
    study, round = _open_round_for(request, study_id)
    issue = get_object_or_404(study.issues, pk=issue_id)
    skipped = request.session.get(SKIPPED_KEY, {})
    ids = [i for i in skipped.get(str(round.pk), []) if i != issue.pk] + [issue.pk]
    skipped[str(round.pk)] = ids
    request.session[SKIPPED_KEY] = skipped
    if request.htmx:
        return _render_next(request, study, round)
    return redirect("annotation:queue", study_id=study.pk)
