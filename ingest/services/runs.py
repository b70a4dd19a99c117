"""The life of an IngestRun row: queued → running → succeeded | failed, with counts saved as it goes."""
from __future__ import annotations

import os
from datetime import timedelta

from django.conf import settings
from django.db import DEFAULT_DB_ALIAS, connection, connections, transaction
from django.db.models import Q
from django.utils import timezone

from concord import queueing

from ..models import IngestRun, Source, SummaryBatch
from ..pipeline import Counts

COUNT_FIELDS = ["fetched", "created", "updated", "unchanged", "skipped_pull_requests", "filtered_out"]
READ_FIELDS = ["fetched", "skipped_pull_requests", "filtered_out"]


def create_run(source: Source, kind: str, user=None, **fields) -> IngestRun:
    return IngestRun.objects.create(source=source, kind=kind, created_by=user, **fields)


def enqueue(run: IngestRun) -> IngestRun:
    """Hand the run to a worker once the row is committed, so the worker can read it."""
    from ..tasks import run_ingest_task  # cycle: the task module imports the services it runs

    def send() -> None:
        try:
            queueing.send(run_ingest_task, run.pk)
        except queueing.QueueUnavailable as exc:
            finish(run, IngestRun.Status.FAILED, str(exc))

    transaction.on_commit(send)
    return run


def mark_running(run: IngestRun) -> None:
    run.status = IngestRun.Status.RUNNING
    run.started_at = run.started_at or timezone.now()
    run.finished_at = None
    run.heartbeat_at = timezone.now()
    run.save(update_fields=["status", "started_at", "finished_at", "heartbeat_at"])


def save_progress(run: IngestRun, counts: Counts, message: str = "", **extra) -> None:
    """Counts written by the caller's committed work, and a heartbeat."""
    for field, value in counts.as_dict().items():
        setattr(run, field, value)
    for field, value in extra.items():
        setattr(run, field, value)
    if message:
        run.message = message
    run.heartbeat_at = timezone.now()
    run.save(update_fields=[*COUNT_FIELDS, *extra, "heartbeat_at", *(["message"] if message else [])])


def beat(run: IngestRun, message: str = "") -> None:
    """A heartbeat, with what the run is doing (waiting for a rate limit, say)."""
    run.heartbeat_at = timezone.now()
    if message:
        run.message = message
    run.save(update_fields=["heartbeat_at", *(["message"] if message else [])])


def interrupt_stale(stale_after: float | None = None) -> int:
    """Mark running runs whose heartbeat stopped (their process was killed) as failed, saying so; the number
    marked. A file run writes in one transaction, so none of its issues was kept: its write counts go to 0."""
    seconds = settings.INGEST_HEARTBEAT_STALE_SECONDS if stale_after is None else stale_after
    cutoff = timezone.now() - timedelta(seconds=seconds)
    marked = 0
    stale = IngestRun.objects.filter(status=IngestRun.Status.RUNNING).filter(
        Q(heartbeat_at__lt=cutoff) | Q(heartbeat_at__isnull=True, started_at__lt=cutoff))
    marked += _interrupt_stale_batches(cutoff)
    for run in stale.only("pk", "kind", "heartbeat_at", "started_at", "fetched"):
        last = run.heartbeat_at or run.started_at
        said = (f"Interrupted: no heartbeat since {last:%Y-%m-%d %H:%M:%S} UTC (its worker was stopped or killed).")
        if run.kind == IngestRun.Kind.FILE and connection.vendor == "postgresql":
            said += (f" It had read {run.fetched:,} issues; none was kept (a file is imported in one transaction)."
                     " Re-run it, or it is retried when a worker takes the task again.")
            writes = {"created": 0, "updated": 0, "unchanged": 0}
        elif run.kind == IngestRun.Kind.FILE:
            said += " The issues written before are kept; a re-run updates them in place."
            writes = {}
        else:
            said += " The pages written before are kept; a new run resumes from the last one."
            writes = {}
        # Guarded by the status, so a run that finished meanwhile keeps its outcome.
        marked += IngestRun.objects.filter(pk=run.pk, status=IngestRun.Status.RUNNING).update(
            status=IngestRun.Status.FAILED, message=said, finished_at=timezone.now(), **writes)
    return marked


def _interrupt_stale_batches(cutoff) -> int:
    """Summary batches too: every summary made is kept (each is its own row), and a new batch makes the rest."""
    marked = 0
    stale = SummaryBatch.objects.filter(status=SummaryBatch.Status.RUNNING).filter(
        Q(heartbeat_at__lt=cutoff) | Q(heartbeat_at__isnull=True, started_at__lt=cutoff))
    for batch in stale.only("pk", "heartbeat_at", "started_at", "made", "cached"):
        last = batch.heartbeat_at or batch.started_at
        marked += SummaryBatch.objects.filter(pk=batch.pk, status=SummaryBatch.Status.RUNNING).update(
            status=SummaryBatch.Status.FAILED, finished_at=timezone.now(),
            message=(f"Interrupted: no heartbeat since {last:%Y-%m-%d %H:%M:%S} UTC (its worker was stopped or "
                     f"killed). The {batch.made + batch.cached} summaries made are kept; summarising again "
                     "makes the rest."))
    return marked


@transaction.atomic
def retry(run: IngestRun, user=None) -> IngestRun:
    """A new run of a failed file run's file, queued; ValueError when it cannot be retried. A run is re-run
    once: its row is locked, so two people (or two tabs) asking at once make one re-run, and the second is told."""
    run = IngestRun.objects.select_for_update().get(pk=run.pk)
    if run.retries.exists():
        raise ValueError(f"it was run again already (run {run.retries.order_by('pk').first().pk})")
    if run.kind != IngestRun.Kind.FILE or run.status != IngestRun.Status.FAILED:
        raise ValueError("only a failed file run can be run again")
    if not os.path.isfile(run.file_path):
        raise ValueError("its file is no longer stored; upload it again")
    again = create_run(run.source, IngestRun.Kind.FILE, user=user, file_path=run.file_path,
                       file_format=run.file_format, retry_of=run)
    return enqueue(again)


def finish(run: IngestRun, status: str, message: str = "") -> None:
    run.status = status
    run.message = message
    run.finished_at = timezone.now()
    run.save(update_fields=["status", "message", "finished_at", "errors"])


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
        values = {field: getattr(counts, field) for field in READ_FIELDS}
        assignments = ", ".join(f"{field} = %s" for field in values)
        with self.connection.cursor() as cursor:
            cursor.execute(
                f"UPDATE {IngestRun._meta.db_table} SET {assignments}, heartbeat_at = now() WHERE id = %s",
                [*values.values(), self.run.pk],
            )
