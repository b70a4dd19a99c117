"""A rater's figures measured by a worker and kept (machines.models.Measurement), so that the rater's page and a
decision never load scipy, statsmodels and pandas (about 80 MB) into a web process."""
from __future__ import annotations

import time

from django.db.models import Count, Max
from django.urls import reverse

from accounts import notices
from annotation import events
from annotation.models import FinalLabel, Label, Queue, Study
from annotation.permissions import can_manage_seeing_labels
from annotation.selectors.studies import agreement_round, leads
from concord import jobs
from taxonomy.models import Codebook

from ..measures import below_decision
from ..models import MachineRun, Measurement, ReplacementDecision
from ..selectors import machine_labels, measurement, panel
from .seats import give_back_on_alarm
from .sentinels import sentinel_reports

MEASURING = 15 * 60  # seconds a requested measurement is taken to be under way; the task clears it when done


def panel_state(study: Study) -> str:
    """What the figures depend on besides the run, in a few aggregates: the independent round's labels (count and
    last change), the final labels, the labelers set aside, the other machines' runs of record, and the codebook's
    revision (a renamed code changes no label but the figures' names)."""
    round = agreement_round(study)
    labels = Label.objects.filter(round=round).aggregate(n=Count("pk"), last=Max("updated_at"))
    finals = FinalLabel.objects.filter(study=study).aggregate(n=Count("pk"), last=Max("decided_at"))
    stopped = Queue.objects.filter(round=round, stopped_at__isnull=False).count()
    runs = MachineRun.objects.filter(rater__study=study, status=MachineRun.Status.SUCCEEDED).aggregate(
        n=Count("pk"), last=Max("pk"))
    when = {name: found["last"].isoformat() if found["last"] else "-" for name, found in
            (("labels", labels), ("finals", finals))}
    revision = Codebook.objects.filter(pk=study.codebook_id).values_list("revision", flat=True).first()
    return (f"round {getattr(round, 'pk', '-')}; labels {labels['n']} {when['labels']}; finals {finals['n']} "
            f"{when['finals']}; set aside {stopped}; runs {runs['n']} {runs['last'] or '-'}; codebook {revision}")


def _key(run: MachineRun, level: str, type_code: str, epsilon: float, decision_id: int | None) -> str:
    return f"machines:measuring:{run.pk}:{level}:{type_code}:{epsilon}:{decision_id or ''}"


def stored(run: MachineRun, level: str, type_code: str, epsilon: float, decision_id: int | None = None, *,
           state: str | None = None) -> Measurement | None:
    return Measurement.objects.filter(run=run, level=level, type_code=type_code, epsilon=epsilon,
                                      decision_id=decision_id,
                                      panel=state or panel_state(run.rater.study)).first()


def requested(run: MachineRun, level: str, type_code: str, epsilon: float, decision_id: int | None = None, *,
              state: str | None = None) -> Measurement | None:
    """The run's figures for the current panel (on a decision's sentinel reports only, with `decision_id`);
    when there are none yet, a worker is asked for them (once, however many pages ask while it works) and None
    is returned until they are there. Tasks run in-process (the zero-set-up default, tests) have them on return;
    with the queue away they are measured here. `state`: the panel's state, when the caller has read it."""
    state = state or panel_state(run.rater.study)
    # Read again after sending against the state read first (or a newer one: asked again later).
    return jobs.kept_or_sent(lambda: stored(run, level, type_code, epsilon, decision_id, state=state),
                             _key(run, level, type_code, epsilon, decision_id), MEASURING, measure_task, run.pk,
                             level, type_code, epsilon, decision_id,
                             here=lambda: measure(run, level, type_code, epsilon, decision_id))


def measure(run: MachineRun, level: str, type_code: str, epsilon: float,
            decision_id: int | None = None) -> Measurement | None:
    """Measure the run (None if it is no longer the rater's run of record) and keep the figures."""
    try:
        # The panel's state is read first: labels that change while this runs make the figures stale, never
        # stale figures look current.
        state = panel_state(run.rater.study)
        loaded = machine_labels(run.rater)
        if loaded is None or loaded.run.pk != run.pk:
            return None
        started = time.perf_counter()
        if decision_id is None:
            figures = measurement(run.rater, level=level, type_code=type_code, epsilon=epsilon, loaded=loaded)
        else:
            decision = ReplacementDecision.objects.filter(pk=decision_id).first()
            if decision is None:  # deleted with its rater meanwhile
                return None
            the_panel = panel(run.rater.study)
            chosen = sentinel_reports(decision, the_panel.reference_types)
            figures = {"sentinels": len(chosen), "figures": measurement(
                run.rater, level=level, type_code=type_code, epsilon=epsilon, only=chosen, the_panel=the_panel,
                loaded=loaded)}
        found, _ = Measurement.objects.get_or_create(
            run=run, level=level, type_code=type_code, epsilon=epsilon, decision_id=decision_id, panel=state,
            defaults={"figures": figures, "seconds": time.perf_counter() - started})
        if decision_id is not None:
            give_back_on_alarm(decision, figures["figures"])
            if figures["figures"] and below_decision(decision.figures, figures["figures"]):
                _tell_leads(decision)
        return found
    finally:
        jobs.done(_key(run, level, type_code, epsilon, decision_id))


def _tell_leads(decision: ReplacementDecision) -> None:
    # Once per decision: each later measurement finds it fallen again, and the study page flags it from now on.
    study = decision.rater.study
    # A figure against the people's labels: not told to a lead who labels blind, whose machine pages refuse it
    # (the study page shows the flag once they may see it).
    seeing = [lead for lead in leads(study) if can_manage_seeing_labels(lead, study)]
    notices.notify(seeing, "flagged", f"flagged:{decision.pk}",
                   {"rater": decision.rater.name, "study": study.name, "level": decision.level},
                   url=reverse("annotation:study_detail", args=[study.pk]), study_id=study.pk, once=True)
    events.tell(study, "machine.flagged", {"rater": {"id": decision.rater_id, "name": decision.rater.name},
                                             "decision": decision.pk, "level": decision.level,
                                             "type": decision.type_code or None})


def measure_by_id(run_id: int, level: str, type_code: str, epsilon: float, decision_id: int | None) -> None:
    """The task's work: a run's figures against the panel at one level, type and ε (on a decision's sentinels,
    with `decision_id`), kept for the rater's page, decisions and their watch."""
    found = MachineRun.objects.select_related("rater__study").filter(pk=run_id).first()
    if found is not None:
        measure(found, level, type_code, epsilon, decision_id)


# In a child process the worker ends when idle: the figures load scipy, statsmodels and pandas.
measure_task = jobs.task(measure_by_id, queue="statistics", apart_from_worker=True)
