"""The life of an IngestRun row: queued → running → succeeded | failed, with counts saved as it goes."""
from __future__ import annotations

import os

from django.db import DEFAULT_DB_ALIAS, connection, connections

from concord import jobs

from ..models import IngestRun, Source, SummaryBatch
from ..pipeline import Counts
from ..sql import publish_progress

READ_FIELDS = ["fetched", "skipped_pull_requests", "filtered_out"]


def create_run(source: Source, kind: str, user=None, **fields) -> IngestRun:
    return IngestRun.objects.create(source=source, kind=kind, created_by=user, **fields)


def mark_running(run: IngestRun) -> None:
    jobs.start(run)


def save_progress(run: IngestRun, counts: Counts, message: str = "", **extra) -> None:
    """Counts written by the caller's committed work, and a heartbeat."""
    jobs.beat(run, message, **counts.as_dict(), **extra)


def beat(run: IngestRun, message: str = "") -> None:
    """A heartbeat, with what the run is doing (waiting for a rate limit, say)."""
    jobs.beat(run, message)


def finish(run: IngestRun, status: str, message: str = "") -> None:
    jobs.finish(run, status, message, fields=("errors",))


def _kept(run: IngestRun) -> tuple[str, dict]:
    """What of an interrupted run's work is kept. A file run on PostgreSQL writes in one transaction, so none of
    its issues was kept: its write counts go to 0."""
    if run.kind == IngestRun.Kind.FILE and connection.vendor == "postgresql":
        return (f"It had read {run.fetched:,} issues; none was kept (a file is imported in one transaction). "
                "Re-run it, or it is retried when a worker takes the task again.",
                {"created": 0, "updated": 0, "unchanged": 0})
    if run.kind == IngestRun.Kind.FILE:
        return "The issues written before are kept; a re-run updates them in place.", {}
    return "The pages written before are kept; a new run resumes from the last one.", {}


def _batch_kept(batch: SummaryBatch) -> tuple[str, dict]:
    """What an interrupted batch keeps: every summary made (each is its own row); a new batch makes the rest."""
    return f"The {batch.made + batch.cached} summaries made are kept; summarising again makes the rest.", {}


def interrupt_stale(stale_after: float | None = None) -> int:
    """Mark runs and summary batches whose heartbeat stopped (their process was killed) as failed, saying so;
    the number marked."""
    return (jobs.interrupt_stale(IngestRun, _kept, stale_after)
            + jobs.interrupt_stale(SummaryBatch, _batch_kept, stale_after))


def new_run_of(run: IngestRun, user=None) -> IngestRun:
    """A new run of a failed file run's file, not yet queued; ValueError when it cannot be retried. A run is
    re-run once: its row is locked (the caller's transaction holds the lock), so two people (or two tabs) asking
    at once make one re-run, and the second is told."""
    run = IngestRun.objects.select_for_update().get(pk=run.pk)
    if run.retries.exists():
        raise ValueError(f"it was run again already (run {run.retries.order_by('pk').first().pk})")
    if run.kind != IngestRun.Kind.FILE or run.status != IngestRun.Status.FAILED:
        raise ValueError("only a failed file run can be run again")
    if not os.path.isfile(run.file_path):
        raise ValueError("its file is no longer stored; upload it again")
    return create_run(run.source, IngestRun.Kind.FILE, user=user, file_path=run.file_path,
                      file_format=run.file_format, retry_of=run)


class ProgressChannel:
    """Publishes a run's counts on a database connection of its own, so that progress shows while the
    import's own transaction is still open. Use as a context manager."""

    def __init__(self, run: IngestRun):
        self.run = run
        self.connection = connections.create_connection(DEFAULT_DB_ALIAS)

    def __enter__(self) -> ProgressChannel:
        return self

    def __exit__(self, *exc) -> None:
        self.connection.close()

    def publish(self, counts: Counts) -> None:
        """What has been read, and a heartbeat. Not what has been written: those writes are not committed yet,
        and a run killed now must not claim them."""
        publish_progress(self.connection, self.run, {field: getattr(counts, field) for field in READ_FIELDS})
