from __future__ import annotations

from celery import shared_task

from concord import apart

from .models import MachineRun


# Late acknowledgement: a worker killed mid-run gives the run back to the queue, and the re-run takes what was
# answered from the call cache. No result is stored: the run's row is the result.
@shared_task(ignore_result=True, acks_late=True, reject_on_worker_lost=True)
def rate_task(run_id: int) -> dict:
    """Rate a study's reports with one machine rater; the run's row holds progress and outcome."""
    return apart.call("machines.tasks.rate", run_id)


@shared_task
def measure_task(run_id: int, level: str, type_code: str, epsilon: float, decision_id: int | None = None) -> None:
    """A run's figures against the panel at one level, type and ε (on a decision's sentinels, with
    `decision_id`), kept for the rater's page, decisions and their watch."""
    apart.call("machines.tasks.measure", run_id, level, type_code, epsilon, decision_id)


# The tasks' work, in the process concord.apart runs it in.
def rate(run_id: int) -> dict:
    from .services.runs import run  # deferred: the classifier and statistics, for the child process only

    done = run(MachineRun.objects.select_related("rater__study").get(pk=run_id))
    return {"run": done.pk, "status": done.status}


def measure(run_id: int, level: str, type_code: str, epsilon: float, decision_id: int | None) -> None:
    from .services import measurements  # deferred: the statistics, for the child process only

    found = MachineRun.objects.select_related("rater__study").filter(pk=run_id).first()
    if found is not None:
        measurements.measure(found, level, type_code, epsilon, decision_id)
