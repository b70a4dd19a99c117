"""The life of an IngestRun row: queued → running → succeeded | failed, with counts saved as it goes."""
from __future__ import annotations

from django.db import DEFAULT_DB_ALIAS, connections, transaction
from django.utils import timezone

from ..models import IngestRun, Source
from ..pipeline import Counts

COUNT_FIELDS = ["fetched", "created", "updated", "unchanged", "skipped_pull_requests", "filtered_out"]


def create_run(source: Source, kind: str, user=None, **fields) -> IngestRun:
    return IngestRun.objects.create(source=source, kind=kind, created_by=user, **fields)


def enqueue(run: IngestRun) -> IngestRun:
    """Hand the run to a worker once the row is committed, so the worker can read it."""
    from ..tasks import run_ingest_task

    transaction.on_commit(lambda: run_ingest_task.delay(run.pk))
    return run


def mark_running(run: IngestRun) -> None:
    run.status = IngestRun.Status.RUNNING
    run.started_at = run.started_at or timezone.now()
    run.finished_at = None
    run.save(update_fields=["status", "started_at", "finished_at"])


def save_progress(run: IngestRun, counts: Counts, message: str = "", **extra) -> None:
    for field, value in counts.as_dict().items():
        setattr(run, field, value)
    for field, value in extra.items():
        setattr(run, field, value)
    if message:
        run.message = message
    run.save(update_fields=[*COUNT_FIELDS, *extra, *(["message"] if message else [])])


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
        values = counts.as_dict()
        assignments = ", ".join(f"{field} = %s" for field in values)
        with self.connection.cursor() as cursor:
            cursor.execute(
                f"UPDATE {IngestRun._meta.db_table} SET {assignments} WHERE id = %s", [*values.values(), self.run.pk]
            )
