from __future__ import annotations

from celery import shared_task

from .models import MachineRun
from .services.measurements import measure
from .services.runs import run


# Late acknowledgement: a worker killed mid-run gives the run back to the queue, and the re-run takes what was
# answered from the call cache. No result is stored: the run's row is the result.
@shared_task(ignore_result=True, acks_late=True, reject_on_worker_lost=True)
def rate_task(run_id: int) -> dict:
    """Rate a study's reports with one machine rater; the run's row holds progress and outcome."""
    done = run(MachineRun.objects.select_related("rater__study").get(pk=run_id))
    return {"run": done.pk, "status": done.status}


@shared_task
def measure_task(run_id: int, level: str, type_code: str, epsilon: float, decision_id: int | None = None) -> None:
    """A run's figures against the panel at one level, type and ε (on a decision's sentinels, with
    `decision_id`), kept for the rater's page, decisions and their watch."""
    found = MachineRun.objects.select_related("rater__study").filter(pk=run_id).first()
    if found is not None:
        measure(found, level, type_code, epsilon, decision_id)
