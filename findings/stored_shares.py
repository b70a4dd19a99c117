"""The shares three ways, computed by a worker and kept, so that the page never loads every label, the panel and
the statistics libraries into a web process (a million reports' labels are gigabytes). Kept beside a rater's
other figures (machines.Measurement, at "level" shares), keyed by the run, what the page asks for (the
comparison's rule and level, if any) and a digest of everything the shares depend on; when any of that moves,
they are computed again."""
from __future__ import annotations

import hashlib
import time

from annotation.models import QueueWeight, Study
from concord import jobs
from machines.models import MachineRater, MachineRun, Measurement
from machines.selectors import latest_run
from machines.services.measurements import panel_state

from .comparison import ComparisonError
from .estimates import Estimates, by_subset, estimates, from_kept, inputs, to_kept

LEVEL = "shares"
COMPUTING = 15 * 60  # seconds a requested computation is taken to be under way; the task clears it when done


def state(study: Study) -> str:
    """A digest of what the shares depend on besides the run: the panel's state (labels, final labels, runs,
    codebook) and the queues' order with its weights."""
    weights = QueueWeight.objects.filter(study=study).count()
    whole = f"{panel_state(study)}; order {study.queue_order} {study.queue_order_from} {weights}; seed {study.seed}"
    return hashlib.sha256(whole.encode()).hexdigest()


def _asked(by: str, level: str) -> str:
    return f"{by}:{level}" if by else ""


def _key(run: MachineRun, asked: str) -> str:
    return f"findings:shares:{run.pk}:{asked}"


def _stored(run: MachineRun, asked: str, digest: str) -> Measurement | None:
    return Measurement.objects.filter(run=run, level=LEVEL, type_code=asked, epsilon=0.0, decision__isnull=True,
                                      panel=digest).first()


def compute(study: Study, rater: MachineRater, by: str = "", level: str = "theme") -> Estimates | None:
    """The shares, computed here and now; with `by`, the comparison's section too (ComparisonError when `by` or
    `level` is none the comparison knows)."""
    # Read once: people's and the machine's labels of every report are the bulk of the work.
    given = inputs(study, rater)
    found = estimates(study, rater, given)
    if found is not None and by:
        section = by_subset(study, rater, by, level, given)
        if section is not None:
            found.sections.append(section)
    return found


def requested(study: Study, rater: MachineRater, by: str = "", level: str = "theme") -> Estimates | None:
    """The kept shares for the study as it is now; when there are none yet, a worker is asked for them (once,
    however many pages ask) and None is returned until they are there. Tasks run in-process have them on
    return; with the queue away they are computed here."""
    run = latest_run(rater)
    if run is None:
        return None
    asked, digest = _asked(by, level), state(study)

    def find() -> Estimates | None:
        found = _stored(run, asked, digest)
        return None if found is None else from_kept(found.figures, rater)

    return jobs.kept_or_sent(find, _key(run, asked), COMPUTING, compute_task, run.pk, by, level,
                             here=lambda: keep(run, by, level))


def keep(run: MachineRun, by: str, level: str) -> Estimates | None:
    """Compute the shares for the run (None if it is no longer its rater's run of record) and keep them."""
    asked = _asked(by, level)
    try:
        study = run.rater.study
        # The state is read first: labels that change meanwhile make the shares stale, never stale shares current.
        digest = state(study)
        if latest_run(run.rater) != run:
            return None
        started = time.perf_counter()
        found = compute(study, run.rater, by, level)
        if found is None:
            return None
        Measurement.objects.get_or_create(
            run=run, level=LEVEL, type_code=asked, epsilon=0.0, decision=None, panel=digest,
            defaults={"figures": to_kept(found), "seconds": time.perf_counter() - started})
        return found
    except ComparisonError:
        return None
    finally:
        jobs.done(_key(run, asked))


def keep_by_id(run_id: int, by: str, level: str) -> None:
    """The task's work: a run's shares three ways, kept for the shares page."""
    found = MachineRun.objects.select_related("rater__study").filter(pk=run_id).first()
    if found is not None:
        keep(found, by, level)


# In a child process the worker ends when idle: the shares load every label and numpy.
compute_task = jobs.task(keep_by_id, queue="statistics", apart_from_worker=True)
