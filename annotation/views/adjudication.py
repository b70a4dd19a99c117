"""The lead's adjudication: the reports still tied after the review, every label, note and comment side by
side, and the final label with its rationale."""
from __future__ import annotations

from django import forms
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_GET, require_http_methods

from concord.http import HtmxHttpRequest
from ingest.services.summaries import summary_for_display
from taxonomy.languages import reader_tree

from ..access import get_study_for
from ..forms import NOT_RELEVANT_CHOICE, LabelForm
from ..models import Comment, FinalLabel, SeatLabel
from ..permissions import can_manage_seeing_labels, can_view_all_labels
from ..selectors.final_labels import final_label_counts, final_label_of, lead_decisions
from ..selectors.labels import labels_of_report
from ..selectors.votes import needing_decision
from ..services.adjudication import decide, decision_version
from ..services.labels import LabelError


class DecisionForm(LabelForm):
    rationale = forms.CharField(widget=forms.Textarea, max_length=5000,
                                error_messages={"required": "Say why: the rationale is part of the record."})


@login_required
@require_GET
def adjudication_list(request: HtmxHttpRequest, study_id: int):
    study = get_study_for(request, study_id, can_manage_seeing_labels)
    waiting = needing_decision(study) if study.phase == study.Phase.ADJUDICATION else {}
    issues = {i.pk: i for i in study.issues.filter(pk__in=list(waiting)).select_related("source")}
    made = final_label_counts(study)
    context = {"study": study, "waiting": [(issues[i], levels) for i, levels in waiting.items()],
               "decided": lead_decisions(request.user, study),
               "counts": {m.label: made.get(m.value, 0) for m in FinalLabel.Method}}
    return render(request, "annotation/adjudication_list.html", context)


def _initial(decision: FinalLabel | None, form) -> dict:
    if form is not None and form.is_bound:
        return {k: form.data.get(k, "") for k in ("type", "theme", "sub_theme")}
    if decision is None:
        return {}
    return {"type": NOT_RELEVANT_CHOICE if not decision.is_relevant else str(decision.type_id),
            "theme": str(decision.theme_id or ""), "sub_theme": str(decision.sub_theme_id or "")}


@login_required
@require_http_methods(["GET", "POST"])
def adjudicate(request: HtmxHttpRequest, study_id: int, issue_id: int):
    study = get_study_for(request, study_id, can_manage_seeing_labels)
    issue = get_object_or_404(study.issues.select_related("source"), pk=issue_id)
    decision = final_label_of(request.user, study, issue)
    form = DecisionForm(request.POST or None)
    error = ""
    if request.method == "POST":
        if form.is_valid():
            try:
                decide(study, request.user, issue.pk, form.to_input(), form.cleaned_data["rationale"],
                       expected_version=request.POST.get("expected", ""))
            except LabelError as exc:
                error = exc.message
            else:
                messages.success(request, f"Final label recorded for {issue}.")
                nxt = next(iter(needing_decision(study)), None)
                if nxt is not None:
                    return redirect("annotation:adjudicate", study_id=study.pk, issue_id=nxt)
                return redirect("annotation:adjudication_list", study_id=study.pk)
        else:
            error = " ".join(e for errors in form.errors.values() for e in errors)
    context = {
        "study": study, "issue": issue, "decision": decision, "error": error,
        "all_labels": labels_of_report(request.user, study, issue),
        # A machine's vote in a person's seat counts as theirs would: shown beside them, marked as a machine's.
        "seat_votes": SeatLabel.objects.filter(seat__study=study, seat__given_back_at__isnull=True, issue=issue)
        .select_related("seat__annotator", "seat__round", "type") if can_view_all_labels(request.user, study) else (),
        "version": decision_version(decision),
        "comments": Comment.objects.filter(study=study, issue=issue).select_related("author", "round"),
        "summary": summary_for_display(issue), "types": reader_tree(study.codebook),
        "initial": _initial(decision, form), "not_relevant": NOT_RELEVANT_CHOICE,
        "rationale": form.data.get("rationale", "") if form.is_bound else (decision.rationale if decision else ""),
        "levels": needing_decision(study).get(issue.pk, []) if study.phase == study.Phase.ADJUDICATION else [],
    }
    return render(request, "annotation/adjudicate.html", context, status=400 if error else 200)
