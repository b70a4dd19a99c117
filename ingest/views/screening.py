"""Screening pages: screeners judge sampled issues from a queue; admins draw samples, watch the figures
and decide on keywords. Screeners are blind to each other: a queue shows only one's own votes, and the
tie-breaker sees the two votes only on the issues where they disagree."""
from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.db import transaction
from django.db.models import Count, Q
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.text import slugify
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_POST

from concord import form_tokens
from concord.csv_stream import csv_lines, csv_response
from concord.http import HtmxHttpRequest

from ..forms import KeywordSampleForm, StratumSampleForm
from ..models import ScreeningItem, ScreeningSample, ScreeningVote, Source
from ..selectors import decisions, meets_threshold, next_item_for, sample_figures, summary_sufficiency
from ..services import screening
from ..services.summaries import summary_for_display
from ..sql import latest_summary
from .access import staff_required

SKIPPED_KEY = "skipped_screening_items"


def _sample_for(request, sample_id: int) -> ScreeningSample:
    sample = get_object_or_404(ScreeningSample.objects.select_related("keyword", "source"), pk=sample_id)
    user = request.user
    if not (user.is_staff or user.pk in (sample.reviewer_a_id, sample.reviewer_b_id, sample.tiebreaker_id)):
        raise PermissionDenied
    return sample


@login_required
@require_GET
def screening_list(request: HtmxHttpRequest):
    user = request.user
    mine = ScreeningSample.objects.filter(Q(reviewer_a=user) | Q(reviewer_b=user) | Q(tiebreaker=user)).annotate(
        total=Count("items", distinct=True),
        done=Count("items", filter=Q(items__votes__reviewer=user), distinct=True),
    )
    rows = [{"sample": s, "done": s.done, "total": s.total,
             "role": _("tie-breaker") if s.tiebreaker_id == user.pk else _("screener")}
            for s in mine.select_related("keyword", "source")]
    context = {"rows": rows}
    if user.is_staff:
        samples = ScreeningSample.objects.select_related("keyword", "source").annotate(item_count=Count("items"))
        context.update(samples=samples[:100],
                       keyword_form=KeywordSampleForm(), stratum_form=StratumSampleForm())
    return render(request, "ingest/screening_list.html", context)


@login_required
@staff_required
@require_POST
def sample_create(request: HtmxHttpRequest):
    """One view for both kinds of sample; the submit button's name says which."""
    form = (KeywordSampleForm if "keyword_sample" in request.POST else StratumSampleForm)(request.POST)
    if not form.is_valid():
        messages.error(request, "; ".join(f"{field}: {' '.join(errors)}" for field, errors in form.errors.items()))
        return redirect("ingest:screening_list")
    data = form.cleaned_data
    reviewers = (data["reviewer_a"], data["reviewer_b"], data["tiebreaker"])
    try:
        with transaction.atomic():
            # Drawing names no state to expect: the form's one-time token makes a double click draw once.
            form_tokens.claim(request.POST.get(form_tokens.FIELD))
            samples = _draw(form, data, reviewers, request.user)
    except (screening.ScreeningError, form_tokens.AlreadySent) as exc:
        messages.error(request, str(exc))
        return redirect("ingest:screening_list")
    messages.success(request, "Drew " + ", ".join(f"{s} ({s.items.count()} of {s.population})" for s in samples))
    return redirect("ingest:sample_detail", sample_id=samples[0].pk)


def _draw(form, data: dict, reviewers, user) -> list[ScreeningSample]:
    if isinstance(form, KeywordSampleForm):
        return [screening.draw_keyword_sample(data["keyword"], reviewers, data["seed"], data["size"],
                                              data["threshold"], user=user)]
    return screening.draw_stratum_samples(
        data["source"], {stratum: data[f"{stratum}_rate"] for stratum in ("relevant", "unclear", "not_relevant")},
        reviewers, data["seed"], user=user)


@login_required
@staff_required
@require_GET
def sample_detail(request: HtmxHttpRequest, sample_id: int):
    sample = _sample_for(request, sample_id)
    context = {"sample": sample, "figures": sample_figures(sample),
               "meets": meets_threshold(sample), "sufficiency": summary_sufficiency(sample)}
    template = "ingest/sample_detail.html#figures" if request.htmx else "ingest/sample_detail.html"
    return render(request, template, context)


@login_required
@staff_required
@require_POST
def sample_decide(request: HtmxHttpRequest, sample_id: int):
    sample = _sample_for(request, sample_id)
    try:
        if request.POST.get("expected_status") != ScreeningSample.Status.OPEN:
            raise screening.ScreeningError("the form did not say which state it was shown for; reload the page")
        sample = screening.decide_keyword(sample, request.user, accept="accept" in request.POST)
    except screening.ScreeningError as exc:
        messages.error(request, str(exc))
    else:
        messages.success(request, f"Keyword '{sample.keyword}' {sample.get_status_display().lower()}.")
    return redirect("ingest:sample_detail", sample_id=sample.pk)


def _queue_context(request, sample: ScreeningSample, item: ScreeningItem | None, error: str = "") -> dict:
    user = request.user
    context = {"sample": sample, "item": item, "error": error,
               "done": sample.items.filter(votes__reviewer=user).count(), "total": sample.items.count()}
    if item is not None:
        context["pre"] = latest_summary(item.issue)
        context["summary"] = summary_for_display(item.issue, context["pre"])
        context["mine"] = ScreeningVote.objects.filter(item=item, reviewer=user).first()
        if user.pk == sample.tiebreaker_id and screening.can_vote(user, item):
            # The tie-breaker decides a disagreement, so sees both sides of it; on an item the two screeners
            # agreed on (or have not both judged) their votes and notes stay theirs.
            context["others"] = item.votes.exclude(reviewer=user).select_related("reviewer")
    return context


def _render_next(request: HtmxHttpRequest, sample: ScreeningSample):
    skipped = request.session.get(SKIPPED_KEY, {}).get(str(sample.pk), [])
    # A vote may just have decided the sample (its confidence sequence cleared the threshold): nothing is left.
    sample.refresh_from_db(fields=["status", "sequence_stop"])
    item = next_item_for(request.user, sample, skipped) if sample.status == ScreeningSample.Status.OPEN else None
    template = "ingest/sample_queue.html#workspace" if request.htmx else "ingest/sample_queue.html"
    return render(request, template, _queue_context(request, sample, item))


@login_required
@require_GET
def sample_queue(request: HtmxHttpRequest, sample_id: int):
    return _render_next(request, _sample_for(request, sample_id))


@login_required
@require_POST
def item_judge(request: HtmxHttpRequest, sample_id: int, item_id: int):
    sample = _sample_for(request, sample_id)
    item = get_object_or_404(sample.items.select_related("issue__source"), pk=item_id)
    if "skip" in request.POST:
        skipped = request.session.get(SKIPPED_KEY, {})
        skipped[str(sample.pk)] = [*[i for i in skipped.get(str(sample.pk), []) if i != item.pk], item.pk]
        request.session[SKIPPED_KEY] = skipped
    elif request.POST.get("verdict") in {"relevant", "not_relevant"}:
        try:
            screening.cast_vote(request.user, item, request.POST["verdict"] == "relevant",
                                request.POST.get("note", ""))
            made = latest_summary(item.issue)
            if made is not None:
                screening.review_summary(request.user, made, request.POST.get("summary_enough") == "1")
        except screening.ScreeningError as exc:
            return render(request, "ingest/sample_queue.html", _queue_context(request, sample, item, str(exc)),
                          status=400)
    else:
        return render(request, "ingest/sample_queue.html",
                      _queue_context(request, sample, item, _("Choose relevant or not relevant.")),
                      status=400)
    if request.htmx:
        return _render_next(request, sample)
    return redirect("ingest:sample_queue", sample_id=sample.pk)


@login_required
@staff_required
@require_GET
def source_decisions_csv(request: HtmxHttpRequest, source_id: int):
    """Every issue of the source with its in/out decision and why."""
    source = get_object_or_404(Source, pk=source_id)
    decided = decisions(source)
    def rows():
        for issue in source.issues.order_by("created_at", "pk").only("pk", "number", "url", "title").iterator():
            decision = decided[issue.pk]
            included = {True: "yes", False: "no", None: "undecided"}[decision.included]
            yield [source.full_name, issue.number, issue.url, issue.title, included, decision.why]

    lines = csv_lines(["source", "number", "url", "title", "included", "why"], rows())
    return csv_response(lines, f"{slugify(source.full_name)}-screening.csv")
