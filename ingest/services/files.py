"""Importing a file into a source. Bad input changes nothing: on PostgreSQL the file is written in one
transaction that the first bad line rolls back; elsewhere it is read through once before the first write."""
from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from django.conf import settings
from django.db import connection, transaction

from .. import sql
from ..importers import ImportFileError, read_issue_file
from ..importers.detect import detect_format
from ..models import IngestRun, Source
from ..parallel import JsonlWorkers, can_fork_workers, plan
from ..pipeline import Counts, IssueWriter
from . import runs

ProgressCallback = Callable[[IngestRun], None]


def check_file(path, file_format: str) -> int:
    """Read and validate every record without writing; the number of records, or ImportFileError."""
    return sum(1 for _ in read_issue_file(path, file_format))


def run_file_import(run: IngestRun, on_progress: ProgressCallback | None = None) -> IngestRun:
    """Execute a queued file run. A bad file fails the run with the file and line, and writes nothing."""
    runs.mark_running(run)
    try:
        return _import(run, on_progress)
    except ImportFileError as exc:
        run.errors += 1
        # Counts published while the rolled-back transaction ran would claim writes that never happened.
        runs.save_progress(run, Counts())
        runs.finish(run, IngestRun.Status.FAILED, f"{exc}. Nothing was imported.")
        raise
    except Exception as exc:
        run.errors += 1
        runs.finish(run, IngestRun.Status.FAILED, f"Stopped by an unexpected error: {exc!r}")
        raise


def _import(run: IngestRun, on_progress: ProgressCallback | None) -> IngestRun:
    file_format = run.file_format or detect_format(run.file_path)
    run.file_format = file_format
    run.save(update_fields=["file_format"])
    # Bad input must change nothing. PostgreSQL writes the whole file in one transaction, which a bad line
    # rolls back, while progress travels on a connection of its own; elsewhere the file is read once
    # through before the first write.
    single_pass = connection.vendor == "postgresql"
    writer = IssueWriter(run.source, one_transaction=single_pass)
    workers = (JsonlWorkers(writer.rules, settings.INGEST_PROCESSES,
                            render_for_source=run.source.pk if single_pass else None)
               if file_format == "jsonl" and _worth_workers(run.file_path) else None)
    try:
        if single_pass:
            _checked(run, workers.plan(run.file_path).lines if workers
                     else count_lines(run.file_path) if file_format == "jsonl" else None)
            with runs.ProgressChannel(run) as channel, transaction.atomic(), _checked_as_written(writer):
                _write_all(run, writer, workers, lambda: _publish(run, writer, channel, on_progress))
        else:
            _checked(run, workers.check(run.file_path) if workers else check_file(run.file_path, file_format))
            _write_all(run, writer, workers, lambda: _progress(run, writer.counts, on_progress))
    finally:
        if workers:
            workers.close()
    _progress(run, writer.counts, on_progress)
    runs.finish(run, IngestRun.Status.SUCCEEDED, writer.summary("read"))
    return run


def _write_all(run: IngestRun, writer: IssueWriter, workers: JsonlWorkers | None, report) -> None:
    if workers:
        verdicts = workers.verdicts(run.file_path)
    else:
        verdicts = (writer.judge(record) for record in read_issue_file(run.file_path, run.file_format))
    for verdict in verdicts:
        writer.add_verdict(verdict)
        if writer.counts.fetched % writer.batch_size == 0:
            report()
    writer.flush()


@contextmanager
def _checked_as_written(writer: IssueWriter) -> Iterator[None]:
    # Where the role may, the rows the new rows point at are held by locks taken once (sql.references_locked).
    # Elsewhere foreign keys are checked when each batch is written, while the workers parse the next ones, rather
    # than all at once at commit, when nothing else is left to run (one check per row and key: 0.5 s of 5 s for
    # 40,000 issues, on one core). Rows are written before the rows that refer to them. Lasts until the
    # transaction ends.
    with sql.references_locked(writer.source.pk, sorted(set(writer.keyword_ids.values()))) as locked:
        if not locked:
            with connection.cursor() as cursor:
                cursor.execute("SET CONSTRAINTS ALL IMMEDIATE")
        yield


def _publish(run: IngestRun, writer: IssueWriter, channel, on_progress: ProgressCallback | None) -> None:
    channel.publish(writer.counts)
    if on_progress:
        for field, value in writer.counts.as_dict().items():
            setattr(run, field, value)
        on_progress(run)


def count_lines(path) -> int:
    """Lines of a JSON Lines file, counted on raw bytes: a fast total for the progress bar (blank lines,
    which the import skips, count too). The workers' plan of the file counts them the same way."""
    return plan(path).lines


def _worth_workers(path) -> bool:
    # Starting processes costs about a second; small files are quicker read in this process.
    return (settings.INGEST_PROCESSES != 1 and can_fork_workers()
            and os.path.getsize(path) >= settings.INGEST_PARALLEL_MIN_BYTES)


def _checked(run: IngestRun, total: int | None) -> None:
    run.total = total
    run.save(update_fields=["total"])


def _progress(run: IngestRun, counts: Counts, on_progress: ProgressCallback | None) -> None:
    runs.save_progress(run, counts)
    if on_progress:
        on_progress(run)


def import_file(path, source: Source, file_format: str | None = None, user=None,
                on_progress: ProgressCallback | None = None) -> IngestRun:
    """Import now, in this process (the command line and tests); the run row records it."""
    run = runs.create_run(source, IngestRun.Kind.FILE, user=user, file_path=str(path), file_format=file_format or "")
    return run_file_import(run, on_progress)
