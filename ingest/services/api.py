"""Ingesting a source from its platform API: page by page, every page kept, resumable."""
from __future__ import annotations

import datetime as dt

from django.utils import timezone

from ..fetchers import FetchError, fetcher_for
from ..models import IngestRun, Source
from ..pipeline import IssueWriter
from . import runs


def resume_point(source: Source):
    """Where a new run starts: the newest update any earlier run of this source got to, finished or not."""
    run = source.runs.filter(kind=IngestRun.Kind.API, high_water__isnull=False).order_by("-high_water").first()
    return run.high_water if run else None


def start_api_run(source: Source, since=None, until=None, user=None) -> IngestRun:
    """A queued run; without `since` it continues where the last run stopped (incremental, or a resume)."""
    if source.platform == Source.Platform.FILE:
        raise ValueError(f"{source} is a file source; import a file instead")
    run = runs.create_run(source, IngestRun.Kind.API, user=user, since=since or resume_point(source), until=until)
    # A run still marked unfinished was killed (its process died): say so, since this one takes over.
    source.runs.filter(kind=IngestRun.Kind.API, status__in=[IngestRun.Status.QUEUED, IngestRun.Status.RUNNING]).exclude(
        pk=run.pk
    ).update(status=IngestRun.Status.FAILED, finished_at=timezone.now(),
             message=f"Interrupted before it finished; run {run.pk} resumes from its last page.")
    return run


def run_api_ingest(run: IngestRun, on_progress=None) -> IngestRun:
    """Fetch and write page by page; a failure keeps every page written so far and names the URL and status."""
    runs.mark_running(run)
    writer = IssueWriter(run.source)
    page_errors: list[str] = []

    def on_wait(message: str) -> None:
        runs.beat(run, message)
        if on_progress:
            on_progress(run)

    try:
        for page in fetcher_for(run.source, on_wait=on_wait).pages(since=run.since, until=run.until):
            for record in page.records:
                writer.add(record)
            writer.flush()
            page_errors.extend(page.errors)
            run.errors = len(page_errors)
            extra = {"errors": run.errors, "total": page.total or run.total}
            if page.high_water is not None:
                extra["high_water"] = page.high_water
            runs.save_progress(run, writer.counts, f"Fetched {writer.counts.fetched} so far", **extra)
            if on_progress:
                on_progress(run)
    except FetchError as exc:
        run.errors += 1
        runs.finish(run, IngestRun.Status.FAILED,
                    f"{exc}. Kept the {writer.counts.fetched} issues fetched before; a new run resumes from there.")
        return run
    except Exception as exc:
        run.errors += 1
        runs.finish(run, IngestRun.Status.FAILED, f"Stopped by an unexpected error: {exc!r}")
        raise
    summary = writer.summary("fetched")
    if page_errors:
        summary += f"; {len(page_errors)} comment lists could not be fetched, the first: {page_errors[0]}"
    runs.finish(run, IngestRun.Status.SUCCEEDED, summary)
    return run


def parse_day(value: str | None, end_of_day: bool = False):
    """YYYY-MM-DD from the command line → an aware datetime (start or end of that day, UTC)."""
    if not value:
        return None
    try:
        day = dt.date.fromisoformat(value)
    except ValueError as exc:
        raise ValueError(f"{value!r} is not a date (YYYY-MM-DD)") from exc
    moment = dt.datetime.combine(day, dt.time.max if end_of_day else dt.time.min)
    return timezone.make_aware(moment, dt.UTC)
