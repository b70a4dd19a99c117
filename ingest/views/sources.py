"""Sources page (admins): add sources, start ingests, watch their progress, see past runs."""
from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.db import transaction
from django.db.models import Count, Q
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from concord import form_tokens, jobs
from concord.http import HtmxHttpRequest, job_progress

from ..forms import SourceForm, UploadForm
from ..models import IngestRun, Source, SummaryBatch
from ..services import runs, work
from ..services.api import start_api_run
from ..services.summaries import start_summary_batch
from ..services.uploads import start_file_run
from .access import staff_required


@login_required
@staff_required
@require_http_methods(["GET", "POST"])
def source_list(request: HtmxHttpRequest):
    form = SourceForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        source = form.save()
        messages.success(request, f"Added {source}.")
        return redirect("ingest:source_detail", source_id=source.pk)
    sources = Source.objects.select_related("keyword_list").annotate(
        issue_count=Count("issues", distinct=True),
        kept_count=Count("issues", filter=Q(issues__kept=True), distinct=True),
    )
    return render(request, "ingest/source_list.html", {"sources": sources, "form": form},
                  status=400 if form.errors else 200)


@login_required
@staff_required
@require_GET
def source_detail(request: HtmxHttpRequest, source_id: int):
    source = get_object_or_404(Source.objects.select_related("keyword_list"), pk=source_id)
    runs.interrupt_stale()  # a run whose worker was killed says so, rather than "running" for ever
    return render(request, "ingest/source_detail.html", {
        "source": source, "runs": source.runs.select_related("created_by")[:50], "upload_form": UploadForm(),
        "issue_count": source.issues.count(), "kept_count": source.issues.filter(kept=True).count(),
        "batches": source.summary_batches.all()[:10],
    })


@login_required
@staff_required
@require_POST
def source_ingest(request: HtmxHttpRequest, source_id: int):
    """One view for both ways in; the submit button's name says which."""
    source = get_object_or_404(Source, pk=source_id)
    if "summarise" in request.POST:
        batch = start_summary_batch(source, user=request.user)
        batch.refresh_from_db()
        if batch.status == SummaryBatch.Status.FAILED:
            messages.error(request, batch.message)
        else:
            messages.info(request, f"Summarising the kept issues of {source} with the {batch.backend} backend.")
        return redirect("ingest:source_detail", source_id=source.pk)
    if "upload" in request.POST:
        form = UploadForm(request.POST, request.FILES)
        if not form.is_valid():
            messages.error(request, " ".join(e for errors in form.errors.values() for e in errors))
            return redirect("ingest:source_detail", source_id=source.pk)
        run = start_file_run(source, form.cleaned_data["file"], form.cleaned_data["format"], user=request.user)
    else:
        try:
            run = work.enqueue(start_api_run(source, user=request.user))
        except ValueError as exc:
            messages.error(request, str(exc))
            return redirect("ingest:source_detail", source_id=source.pk)
    run.refresh_from_db()
    if run.status == IngestRun.Status.FAILED and run.message.startswith(jobs.UNAVAILABLE[:20]):
        messages.error(request, f"Run {run.pk}: {run.message}")
    else:
        messages.info(request, f"Started run {run.pk}.")
    return redirect("ingest:source_detail", source_id=source.pk)


@login_required
@staff_required
@require_POST
def run_retry(request: HtmxHttpRequest, run_id: int):
    """Run a failed file run's file again: one click, and once (the run must still be the failed one shown)."""
    run = get_object_or_404(IngestRun.objects.select_related("source"), pk=run_id)
    try:
        with transaction.atomic():
            form_tokens.claim(request.POST.get(form_tokens.FIELD))
            again = work.retry(run, user=request.user)
    except (form_tokens.AlreadySent, ValueError) as exc:
        messages.error(request, f"Run {run.pk}: {exc}")
    else:
        messages.info(request, f"Started run {again.pk}, a re-run of run {run.pk}.")
    return redirect("ingest:source_detail", source_id=run.source_id)


@login_required
@staff_required
@require_GET
def batch_progress(request: HtmxHttpRequest, batch_id: int):
    runs.interrupt_stale()
    batch = get_object_or_404(SummaryBatch.objects.select_related("source"), pk=batch_id)
    return job_progress(request, "ingest/_summary_batch.html", batch)


@login_required
@staff_required
@require_GET
def run_progress(request: HtmxHttpRequest, run_id: int):
    runs.interrupt_stale()
    run = get_object_or_404(IngestRun.objects.select_related("source"), pk=run_id)
    response = job_progress(request, "ingest/_run.html", run)
    if request.htmx and run.is_finished:
        # The source's page re-reads its issue counts, which the run has just changed.
        response["HX-Trigger"] = "ingest-finished"
    return response
