"""Importing a file into a source: checked whole first, so bad input changes nothing; then written."""
from __future__ import annotations

import os
from collections.abc import Callable

from django.conf import settings
from django.db import connection

from ..importers import ImportFileError, read_issue_file
from ..importers.detect import detect_format
from ..models import IngestRun, Source
from ..parallel import JsonlWorkers, can_fork_workers
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
        runs.finish(run, IngestRun.Status.FAILED, f"{exc}. Nothing was imported.")
        raise
    except Exception as exc:
        run.errors += 1
        runs.finish(run, IngestRun.Status.FAILED, f"Stopped by an unexpected error: {exc!r}")
        raise


def _import(run: IngestRun, on_progress: ProgressCallback | None) -> IngestRun:
    file_format = run.file_format or detect_format(run.file_path)
    run.file_format = file_format
    run.message = "Checking the file"
    run.save(update_fields=["file_format", "message"])
    writer = IssueWriter(run.source)
    if file_format == "jsonl" and _worth_workers(run.file_path):
        render_for = run.source.pk if connection.vendor == "postgresql" else None
        with JsonlWorkers(writer.rules, settings.INGEST_PROCESSES, render_for_source=render_for) as workers:
            _checked(run, workers.check(run.file_path))
            for verdict in workers.verdicts(run.file_path):
                writer.add_verdict(verdict)
                _maybe_progress(run, writer, on_progress)
    else:
        _checked(run, check_file(run.file_path, file_format))
        for record in read_issue_file(run.file_path, file_format):
            writer.add(record)
            _maybe_progress(run, writer, on_progress)
    writer.flush()
    _progress(run, writer.counts, on_progress)
    runs.finish(run, IngestRun.Status.SUCCEEDED, writer.counts.summary("read"))
    return run


def _worth_workers(path) -> bool:
    # Starting processes costs about a second; small files are quicker read in this process.
    return (settings.INGEST_PROCESSES != 1 and can_fork_workers()
            and os.path.getsize(path) >= settings.INGEST_PARALLEL_MIN_BYTES)


def _checked(run: IngestRun, total: int) -> None:
    # Bad input must change nothing: the whole file has been read once before the first write.
    run.total = total
    run.save(update_fields=["total"])


def _maybe_progress(run: IngestRun, writer: IssueWriter, on_progress: ProgressCallback | None) -> None:
    if writer.counts.fetched % writer.batch_size == 0:
        _progress(run, writer.counts, on_progress)


def _progress(run: IngestRun, counts: Counts, on_progress: ProgressCallback | None) -> None:
    runs.save_progress(run, counts)
    if on_progress:
        on_progress(run)


def import_file(path, source: Source, file_format: str | None = None, user=None,
                on_progress: ProgressCallback | None = None) -> IngestRun:
    """Import now, in this process (the command line and tests); the run row records it."""
    run = runs.create_run(source, IngestRun.Kind.FILE, user=user, file_path=str(path), file_format=file_format or "")
    return run_file_import(run, on_progress)
