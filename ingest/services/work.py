"""An ingest as a worker runs it: the task, handing a run to it, and running a failed file again."""
from __future__ import annotations

from django.db import transaction

from concord import jobs

from ..importers import ImportFileError
from ..models import IngestRun
from . import runs
from .api import run_api_ingest
from .files import run_file_import


def ingest(run_id: int) -> None:
    """The task's work: one queued ingest (file or API); its row holds progress and outcome."""
    run = IngestRun.objects.select_related("source__keyword_list").get(pk=run_id)
    try:
        if run.kind == IngestRun.Kind.FILE:
            run_file_import(run)
        else:
            run_api_ingest(run)
    except ImportFileError:
        pass  # already written to the run row; a bad file is not a worker failure


ingest_task = jobs.task(ingest, queue="ingest", job=IngestRun)


def enqueue(run: IngestRun) -> IngestRun:
    """Hand the run to a worker once its row is committed."""
    return jobs.enqueue(run, ingest_task)


@transaction.atomic
def retry(run: IngestRun, user=None) -> IngestRun:
    """A new run of a failed file run's file, queued (runs.new_run_of says when it cannot be)."""
    return enqueue(runs.new_run_of(run, user))
