from __future__ import annotations

from celery import shared_task

from .importers import ImportFileError
from .models import IngestRun, SummaryBatch
from .services.api import run_api_ingest
from .services.files import run_file_import
from .services.summaries import run_summary_batch


# No result is stored: the run's row is the result, and sending needs no result store (Redis may be away).
@shared_task(ignore_result=True)
def run_ingest_task(run_id: int) -> dict:
    """Run one queued ingest (file or API); its row holds progress and outcome."""
    run = IngestRun.objects.select_related("source__keyword_list").get(pk=run_id)
    try:
        if run.kind == IngestRun.Kind.FILE:
            run_file_import(run)
        else:
            run_api_ingest(run)
    except ImportFileError:
        pass  # already written to the run row; a bad file is not a worker failure
    return {"run": run.pk, "status": run.status}


@shared_task(ignore_result=True)
def summarise_source_task(batch_id: int) -> dict:
    """Summarise a source's kept issues; the batch row holds progress and outcome."""
    batch = run_summary_batch(SummaryBatch.objects.select_related("source").get(pk=batch_id))
    return {"batch": batch.pk, "status": batch.status}
