"""The review round: controversial reports with every label, note and comment in view."""
from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.db import transaction
from django.db.models import Count, Q
from django.shortcuts import redirect, render
from django.views.decorators.http import require_GET, require_POST

from concord import form_tokens
from concord.http import HtmxHttpRequest

from ..access import get_study_for
from ..forms import CommentForm
from ..models import Comment, Round, TiedReport
from ..permissions import can_view_all_labels
from ..selectors.labels import labels_of_report
from ..services.labels import LabelError
from ..services.review import post_comment


def _review_round(study) -> Round | None:
    return study.rounds.filter(kind=Round.Kind.REVIEW).order_by("-number").first()


def review_context(user, study, round: Round, issue) -> dict:
    """Everything the review page shows about one report; only for those the blind rule lets see labels."""
    if not can_view_all_labels(user, study):
        return {}
    return {
        "tied_report": TiedReport.objects.filter(round=round, issue=issue).first(),
        "all_labels": labels_of_report(user, study, issue),
        "comments": Comment.objects.filter(round=round, issue=issue).select_related("author"),
        "comment_form": CommentForm(),
    }


@login_required
@require_GET
def review_list(request: HtmxHttpRequest, study_id: int):
    study = get_study_for(request, study_id, can_view_all_labels)
    round = _review_round(study)
    items = []
    if round is not None:
        items = (
            TiedReport.objects.filter(round=round).select_related("issue__source")
            .annotate(n_comments=Count("issue__review_comments", filter=Q(issue__review_comments__round=round),
                                 distinct=True),
                      n_relabels=Count("issue__labels", filter=Q(issue__labels__round=round), distinct=True))
            .order_by("issue__created_at", "issue_id")
        )
    return render(request, "annotation/review_list.html", {"study": study, "round": round, "items": items})


@login_required
@require_POST
def comment_post(request: HtmxHttpRequest, study_id: int, issue_id: int):
    study = get_study_for(request, study_id, can_view_all_labels)
    round = _review_round(study)
    form = CommentForm(request.POST)
    error = ""
    if round is None:
        error = "This study has no review round."
    elif form.is_valid():
        try:
            with transaction.atomic():
                form_tokens.claim(request.POST.get(form_tokens.FIELD))  # a double click posts the comment once
                post_comment(request.user, round, issue_id, form.cleaned_data["body"])
            form = CommentForm()
        except LabelError as exc:
            error = exc.message
        except form_tokens.AlreadySent as exc:
            error = str(exc)
    else:
        error = " ".join(e for errors in form.errors.values() for e in errors)
    if not request.htmx and not error:
        return redirect("annotation:issue_label", study_id=study.pk, issue_id=issue_id)
    comments = Comment.objects.filter(round=round, issue_id=issue_id).select_related("author") if round else []
    context = {"study": study, "round": round, "issue_id": issue_id, "comments": comments,
               "comment_form": form, "comment_error": error}
    return render(request, "annotation/_thread.html", context, status=200 if request.htmx or not error else 400)
