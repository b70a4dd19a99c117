"""Ordering a study's queues by what a machine is least sure of: each report's weight is its machine doubt
(√(1 − confidence)) mixed half and half with the uniform design, and the queues deal reports by a seeded key over
that weight. Any first part of the queues is then a sample with a known chance for each report, which the
prediction-powered estimates weigh by; a fixed number of people's labels buys narrower intervals where the
machine is a good guide (see the README's simulation)."""
from __future__ import annotations

from django.db import transaction

from annotation.models import QueueWeight, Study
from concord.audit import record as audit
from concord.errors import FieldError
from stats.lazy_numpy import np
from stats.ppi import design_weights

from ..models import MachineRater
from ..selectors import confidences, latest_run

BATCH = 5000


class QueueOrderError(FieldError):
    pass


@transaction.atomic
def order_by_doubt(rater: MachineRater, *, expected_run: int, by) -> int:
    """Order the study's queues by the doubt of the rater's labels of record (run `expected_run`, the one the
    page showed); only while the lead's pilot runs, before the independent round's queues are dealt. Returns the
    number of reports weighed."""
    study = Study.objects.select_for_update().get(pk=rater.study_id)
    if study.phase != Study.Phase.PILOT:
        raise QueueOrderError("", "the independent round's queues are dealt already; a study orders its queues "
                                  "by a machine's doubt during the lead's pilot")
    run = latest_run(rater)
    if run is None or run.pk != expected_run:
        raise QueueOrderError("expected_run", "the rater's labels of record changed since the page was shown")
    sure = confidences(run)
    ids = list(study.issues.order_by("pk").values_list("pk", flat=True))
    known = [sure[pk] for pk in ids if pk in sure]
    if not known:
        raise QueueOrderError("", "the rater labeled none of the study's reports")
    doubt = {pk: float(np.sqrt(max(0.0, 1.0 - p))) for pk, p in sure.items()}
    usual = float(np.mean(list(doubt[pk] for pk in ids if pk in doubt)))
    weights = design_weights([doubt.get(pk, usual) for pk in ids])
    QueueWeight.objects.filter(study=study).delete()
    rows = [QueueWeight(study=study, issue_id=pk, weight=float(w)) for pk, w in zip(ids, weights, strict=True)]
    for start in range(0, len(rows), BATCH):
        QueueWeight.objects.bulk_create(rows[start:start + BATCH])
    study.queue_order = Study.QueueOrder.CONFIDENCE
    study.queue_order_from = f"{rater.name}, run {run.number}"[:200]
    study.save(update_fields=["queue_order", "queue_order_from"])
    audit("queues ordered by a machine's doubt", by, study, rater=rater.name, run=run.number, reports=len(ids))
    return len(ids)
