"""Importing a file into a source: checked whole first, so bad input changes nothing; then written."""
from __future__ import annotations

from collections.abc import Callable

from ..importers import ImportFileError, read_issue_file
from ..importers.detect import detect_format
from ..models import IngestRun, Source
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
    # Bad input must change nothing: the whole file is read once before the first write.
    run.total = check_file(run.file_path, file_format)
    run.save(update_fields=["total"])
    writer = IssueWriter(run.source)
    for record in read_issue_file(run.file_path, file_format):
        writer.add(record)
        if writer.counts.fetched % writer.batch_size == 0:
            _progress(run, writer.counts, on_progress)
    writer.flush()
    _progress(run, writer.counts, on_progress)
    runs.finish(run, IngestRun.Status.SUCCEEDED, writer.counts.summary("read"))
    return run


def _progress(run: IngestRun, counts: Counts, on_progress: ProgressCallback | None) -> None:
    runs.save_progress(run, counts)
    if on_progress:
        on_progress(run)


def import_file(path, source: Source, file_format: str | None = None, user=None,
                on_progress: ProgressCallback | None = None) -> IngestRun:
    """Import now, in this process (the command line and tests); the run row records it."""
    run = runs.create_run(source, IngestRun.Kind.FILE, user=user, file_path=str(path), file_format=file_format or "")
    return run_file_import(run, on_progress)
