"""A jury measured against the study's own people by a worker and kept, so that the jury page shows what
delegating would cost before the lead delegates, without loading the statistics libraries in a web process.
Kept beside the members' other figures (a Measurement of the first member's run of record, at "jury" level),
keyed by a digest of every member's run and the thresholds, against the panel's state; when any moves, it is
measured again."""
from __future__ import annotations

import hashlib
import time

from annotation.models import Study
from concord import jobs

from ..jury import JuryError, measure_jury
from ..models import MachineRater, MachineRun, Measurement
from ..selectors import latest_run
from .measurements import panel_state

LEVEL = "jury"
MEASURING = 15 * 60  # seconds a requested measurement is taken to be under way; the task clears it when done
# Resamples of the bootstrap intervals of people's kappa: fewer than a report's, as a page waits on them.
RESAMPLES = 400


def _asked(runs: list[MachineRun], alpha_min: float, confidence_min: float) -> str:
    whole = f"{','.join(str(r.pk) for r in runs)};{alpha_min!r};{confidence_min!r}"
    return hashlib.sha256(whole.encode()).hexdigest()[:32]


def _key(asked: str) -> str:
    return f"machines:jury:{asked}"


def _stored(first: MachineRun, asked: str, state: str) -> Measurement | None:
    return Measurement.objects.filter(run=first, level=LEVEL, type_code=asked, epsilon=0.0, decision__isnull=True,
                                      panel=state).first()


def _runs(raters: list[MachineRater]) -> list[MachineRun] | None:
    runs = [latest_run(r) for r in raters]
    return None if None in runs else runs


def requested(study: Study, raters: list[MachineRater], alpha_min: float, confidence_min: float) -> dict | None:
    """The jury's kept figures (machines.jury.measure_jury) for the study as it is now; when there are none yet,
    a worker is asked for them (once, however many pages ask) and None is returned until they are there."""
    raters = sorted(raters, key=lambda r: r.name)  # as the worker reads them: the key must not hang on the order
    runs = _runs(raters)
    if runs is None:
        return None
    asked, state, ids = _asked(runs, alpha_min, confidence_min), panel_state(study), [r.pk for r in raters]

    def find() -> dict | None:
        found = _stored(runs[0], asked, state)
        return None if found is None else found.figures

    return jobs.kept_or_sent(find, _key(asked), MEASURING, measure_task, ids, alpha_min, confidence_min,
                             here=lambda: keep(ids, alpha_min, confidence_min))


def keep(rater_ids: list[int], alpha_min: float, confidence_min: float) -> dict | None:
    """Measure the jury and keep its figures (None when a member has no run that succeeded any more)."""
    raters = list(MachineRater.objects.filter(pk__in=rater_ids).select_related("study").order_by("name"))
    runs = _runs(raters)
    if runs is None or len(raters) != len(rater_ids):
        return None
    asked = _asked(runs, alpha_min, confidence_min)
    try:
        study = raters[0].study
        # The state is read first: labels that change meanwhile make the figures stale, never stale ones current.
        state = panel_state(study)
        started = time.perf_counter()
        figures = measure_jury(study, raters, alpha_min=alpha_min, confidence_min=confidence_min,
                               resamples=RESAMPLES)
        figures.pop("delegated_reports")
        Measurement.objects.get_or_create(
            run=runs[0], level=LEVEL, type_code=asked, epsilon=0.0, decision=None, panel=state,
            defaults={"figures": figures, "seconds": time.perf_counter() - started})
        return figures
    except JuryError:
        return None
    finally:
        jobs.done(_key(asked))


# In a child process the worker ends when idle: the measurement loads every label and numpy.
measure_task = jobs.task(keep, queue="statistics", apart_from_worker=True)
