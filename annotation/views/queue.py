"""The labeling screen: the annotator's next report, summary first, and the label form."""
from __future__ import annotations

from dataclasses import replace

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django.views.decorators.http import require_GET, require_http_methods, require_POST
from django_htmx.http import HttpResponseLocation

from concord.http import HtmxHttpRequest
from concord.ids import parse_id
from ingest.services.summaries import summary_for_display
from taxonomy.languages import reader_tree

from ..access import get_study_for
from ..forms import NOT_RELEVANT_CHOICE, SKIP_REASONS, LabelForm, SkipForm
from ..models import Queue, Round
from ..permissions import can_label, is_lead
from ..selectors.queue import assignment_of, label_of, neighbour, next_assignment, progress_for
from ..selectors.studies import current_round
from ..services.instructions import instructions_unread, mark_instructions_read
from ..services.labels import LabelError, submit_label, version_of
from ..services.queues import skip
from ..summary_arms import shows_summary
from ..timing import seconds_since_shown, shown_token
from .review import review_context

NOT_QUEUED = gettext_lazy("This report is not in your queue for the current round.")


def _labeling(request, study_id: int):
    study = get_study_for(request, study_id, can_label)
    round = current_round(study)
    if round is None:
        raise Http404(_("This study has no round yet."))
    return study, round


def _initial(label, form) -> dict:
    if form is not None and form.is_bound:
        return {k: form.data.get(k, "") for k in ("type", "theme", "sub_theme", "note")}
    if label is not None:
        return {"type": NOT_RELEVANT_CHOICE if not label.is_relevant else str(label.type_id),
                "theme": str(label.theme_id or ""), "sub_theme": str(label.sub_theme_id or ""), "note": label.note}
    return {}


def _report_parts(study, user, issue) -> dict:
    """What the workspace shows of the report in front of the annotator: the codebook to choose from, its
    summary (or that it is hidden from them), and the token saying which report was shown."""
    if issue is None:
        return {"types": [], "summary": "", "summary_hidden": False, "shown": ""}
    return {"types": reader_tree(study.codebook), "summary": summary_for_display(issue),
            "summary_hidden": not shows_summary(study, user.pk, issue.pk), "shown": shown_token(issue.pk)}


def _context(request, study, round, assignment, *, label=None, form=None, error: str = "") -> dict:
    issue = assignment.issue if assignment else None
    if label is None and assignment is not None and assignment.requeued_because:
        # Sent back by a codebook change: the old label is shown, to be chosen again.
        label = label_of(request.user, round, issue)
    initial = _initial(label, form)
    context = {
        "study": study, "round": round, "assignment": assignment, "issue": issue, "label": label,
        "error": error, "initial": initial, "progress": progress_for(request.user, round),
        "not_relevant": NOT_RELEVANT_CHOICE,
        **_report_parts(study, request.user, issue),
        "skip_form": SkipForm(), "skip_reasons": SKIP_REASONS,
        "label_can_grow": round.kind == Round.Kind.PILOT and is_lead(request.user, study),
        "label_version": version_of(label),
    }
    if issue is not None and round.kind == Round.Kind.REVIEW:
        context.update(review_context(request.user, study, round, issue))
        if label is None and not initial:
            # A re-label starts from one's own independent label, which stays stored as it was.
            own = _own_independent(context.get("all_labels", []), request.user.pk)
            context["initial"] = _initial(own, None)
            context["prefilled_from"] = own
    return context


def _own_independent(labels, user_id: int):
    return next((lb for lb in labels if lb.annotator_id == user_id and lb.round.kind == Round.Kind.INDEPENDENT),
                None)


def _render(request: HtmxHttpRequest, context: dict, status: int = 200):
    if request.htmx:
        return render(request, "annotation/queue.html#workspace", context, status=status)
    # The whole page carries the study's instructions, open by themselves when they are new to this member.
    study = context["study"]
    # The codebook is loaded with the page already: a study without instructions costs no query here.
    context["instructions_unread"] = bool(study.codebook.instructions) and instructions_unread(request.user, study)
    return render(request, "annotation/queue.html", context, status=status)


@login_required
@require_POST
def instructions_read(request: HtmxHttpRequest, study_id: int):
    study = get_study_for(request, study_id, can_label)
    revision = parse_id(request.POST.get("revision"))
    if revision is not None:
        mark_instructions_read(request.user, study, revision)
    if request.htmx:
        return HttpResponse(status=204)
    return redirect("annotation:queue", study_id=study.pk)


@login_required
@require_GET
def queue(request: HtmxHttpRequest, study_id: int):
    study, round = _labeling(request, study_id)
    # Only a lead stops labeling (to see everything); the role comes with the study, so annotators pay no query.
    if round.is_open and is_lead(request.user, study) and Queue.objects.filter(
            round=round, annotator=request.user, stopped_at__isnull=False).exists():
        return _render(request, {"study": study, "round": round, "stopped": True,
                                 "progress": progress_for(request.user, round)})
    assignment = next_assignment(request.user, round) if round.is_open else None
    return _render(request, _context(request, study, round, assignment))


@login_required
@require_GET
def issue_label(request: HtmxHttpRequest, study_id: int, issue_id: int):
    """One report of the user's queue, to revise a label given earlier or to label out of order."""
    study, round = _labeling(request, study_id)
    assignment = assignment_of(request.user, round, issue_id)
    if assignment is None:
        raise Http404(NOT_QUEUED)
    label = label_of(request.user, round, assignment.issue) if assignment.done else None
    return _render(request, _context(request, study, round, assignment, label=label))


@login_required
@require_GET
def previous(request: HtmxHttpRequest, study_id: int):
    """The report before `position` in the user's queue (the one just labeled, usually); with none, as from the
    queue's end, its last report."""
    study, round = _labeling(request, study_id)
    given = request.GET.get("position")
    position = None if given is None else parse_id(given)
    issue_id = None if given is not None and position is None else neighbour(request.user, round, position)
    if issue_id is None:
        return redirect("annotation:queue", study_id=study.pk)
    return redirect("annotation:issue_label", study_id=study.pk, issue_id=issue_id)


def _to_next(request: HtmxHttpRequest, study):
    url = reverse("annotation:queue", args=[study.pk])
    if request.htmx:
        # The next report is fetched by a request of its own, so that saving stays small and fast.
        return HttpResponseLocation(url, target="#workspace", swap="outerHTML show:window:top")
    return redirect(url)


@login_required
@require_http_methods(["GET", "POST"])
def label_submit(request: HtmxHttpRequest, study_id: int, issue_id: int):
    if request.method == "GET":
        # The form's own address, reached by a reload or a bookmark: the report's labeling page.
        return redirect("annotation:issue_label", study_id=study_id, issue_id=issue_id)
    study, round = _labeling(request, study_id)
    form = LabelForm(request.POST)
    error = ""
    if form.is_valid():
        seconds = seconds_since_shown(request.POST.get("shown", ""), issue_id)
        try:
            submit_label(request.user, round, issue_id, replace(form.to_input(), seconds=seconds))
        except LabelError as exc:
            error = exc.message
        else:
            return _to_next(request, study)
    else:
        error = " ".join(e for errors in form.errors.values() for e in errors)
    assignment = assignment_of(request.user, round, issue_id)
    if assignment is None:
        raise Http404(NOT_QUEUED)
    if not request.htmx:
        # A whole-page post (no script, or one sent before the script was ready) goes back to the report's page
        # with the message, so that the address bar never holds a post a reload would send again.
        messages.error(request, _("Not saved: %(error)s") % {"error": error})
        return redirect("annotation:issue_label", study_id=study.pk, issue_id=issue_id)
    label = label_of(request.user, round, assignment.issue)
    context = _context(request, study, round, assignment, label=label, form=form, error=error)
    # htmx swaps only 2xx answers by default, so the form with its message comes back as 200 there.
    return _render(request, context)


@login_required
@require_POST
def label_skip(request: HtmxHttpRequest, study_id: int, issue_id: int):
    study, round = _labeling(request, study_id)
    form = SkipForm(request.POST)
    assignment = assignment_of(request.user, round, issue_id)
    if assignment is None:
        raise Http404(NOT_QUEUED)
    if not form.is_valid():
        if not request.htmx:
            messages.error(request, _("Not skipped: say why you skip this report."))
            return redirect("annotation:issue_label", study_id=study.pk, issue_id=issue_id)
        context = _context(request, study, round, assignment, error=_("Say why you skip this report."))
        context["skip_form"] = form
        return _render(request, context)
    skip(request.user, round, issue_id, form.cleaned_data["reason"])
    return _to_next(request, study)
