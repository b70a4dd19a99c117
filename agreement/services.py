"""Computing a round's agreement and keeping it as a snapshot (read back by agreement.selectors)."""
from __future__ import annotations

import time
from datetime import timedelta

from django.conf import settings
from django.contrib.auth import get_user_model
from django.db.models import Count, Max

from annotation import events
from annotation.models import FinalLabel, Round, Seat
from annotation.selectors.labels import counted_in_round
from annotation.selectors.seats import standing_seats
from concord import jobs, replica
from stats.planner import simulate

from .models import AgreementSnapshot, Plan
from .reports import agreement_figures, figure_counts, study_agreement
from .watch import round_watch


def snapshot(round: Round, level: str = "theme", by=None) -> AgreementSnapshot:
    """The figures from the labels as they are, read from the replica when there is one that holds them (a
    worker waits REPLICA_WAIT_SECONDS for it); the snapshot says up to when its labels are complete."""
    started = time.perf_counter()
    with replica.stale_reads(wait=settings.REPLICA_WAIT_SECONDS) as read:
        figures = agreement_figures(study_agreement(round, level))
        # The headline figures are people's; where a machine stands in someone's seat they are given with it too.
        seats = standing_seats(round)
        if seats:
            figures["with_machines"] = agreement_figures(study_agreement(round, level, machines=True))
            figures["seats"] = seats
        # While the independent round runs: agreement and ties as the labels come in, read after every label.
        if (watched := round_watch(round)) is not None:
            figures["watch"] = watched
        counted = counted_in_round(round).count()
    kept = AgreementSnapshot.objects.create(
        study_id=round.study_id, round=round, level=level, labels=counted,
        figures=figures, computed_by=by, seconds=time.perf_counter() - started, as_of=read.as_of,
    )
    if round.closed_at is not None:
        # Not while the round runs: a lab's chat may be read by the annotators still labeling it blind.
        events.tell(round.study, "agreement.updated", {
            "round": {"number": round.number, "kind": round.kind}, "level": level, "labels": counted,
            "type": figures["type"], "per_type": {t["type"]: t["fleiss"] for t in figures["per_type"]}})
    return kept


def is_current(found: AgreementSnapshot | Plan | None, round: Round) -> bool:
    """Whether the snapshot holds the round's figures from its labels as they are now: none added, changed, set
    aside or removed since its computation started, and no final label (which decides a report's type) made or
    changed since."""
    if found is None or found.round_id != round.pk:
        return False
    now = counted_in_round(round).aggregate(n=Count("pk"), last=Max("updated_at"))
    decided = FinalLabel.objects.filter(study_id=round.study_id).aggregate(last=Max("decided_at"))["last"]
    seated = Seat.objects.filter(round=round).aggregate(taken=Max("taken_at"), back=Max("given_back_at"))
    started = getattr(found, "as_of", None) or found.computed_at - timedelta(seconds=found.seconds)
    return now["n"] == found.labels and all(when is None or when < started
                                            for when in (now["last"], decided, seated["taken"], seated["back"]))



COMPUTING = 15 * 60  # seconds a requested computation is taken to be under way; the task clears it when done


def _computing_key(round: Round, level: str) -> str:
    return f"agreement:computing:{round.pk}:{level}"


def request_snapshot(round: Round, level: str = "theme", by=None) -> None:
    """Hands the computation to a worker (the statistics libraries and a second or more of numpy stay out of
    the web process), once however many pages ask while it runs. With tasks run in-process (the zero-set-up
    default, tests) the snapshot exists on return; with the queue away it is computed here."""
    if not jobs.send_once(_computing_key(round, level), COMPUTING, compute_agreement_task, round.pk, level,
                          getattr(by, "pk", None)):
        snapshot(round, level, by=by)


def computing(round: Round, level: str) -> bool:
    """Whether a computation of the round's figures at `level` was sent and has not ended."""
    return jobs.under_way(_computing_key(round, level))


def computed(round: Round, level: str) -> None:
    jobs.done(_computing_key(round, level))


def plan_snapshot(round: Round, level: str = "theme") -> Plan:
    """The planner's simulations for every kappa of the dashboard, kept (they take seconds)."""
    started = time.perf_counter()
    counted = counted_in_round(round).count()
    plans = [[name, simulate(counts, seed=round.study.seed)] for name, counts in figure_counts(round, level)]
    return Plan.objects.create(round=round, level=level, labels=counted, plans=plans,
                               seconds=time.perf_counter() - started)


def _planning_key(round: Round, level: str) -> str:
    return f"agreement:planning:{round.pk}:{level}"


def request_plan(round: Round, level: str = "theme") -> None:
    """As `request_snapshot`, for the planner: a worker simulates, once however many pages ask meanwhile."""
    if not jobs.send_once(_planning_key(round, level), COMPUTING, compute_plan_task, round.pk, level):
        plan_snapshot(round, level)


def planned(round: Round, level: str) -> None:
    jobs.done(_planning_key(round, level))


def compute(round_id: int, level: str = "theme", by_id: int | None = None) -> dict:
    """The task's work: a round's agreement figures at a level, kept as a dashboard snapshot."""
    round = Round.objects.select_related("study__codebook").get(pk=round_id)
    try:
        by = get_user_model().objects.filter(pk=by_id).first() if by_id else None
        return snapshot(round, level, by=by).figures
    finally:
        computed(round, level)


def compute_plan(round_id: int, level: str = "theme") -> None:
    """The task's work: the planner's simulations for one round, kept for the planner page."""
    round = Round.objects.select_related("study__codebook").get(pk=round_id)
    try:
        plan_snapshot(round, level)
    finally:
        planned(round, level)


# In a child process the worker ends when idle: the figures load scipy and statsmodels and large buffers.
compute_agreement_task = jobs.task(compute, queue="statistics", apart_from_worker=True)
compute_plan_task = jobs.task(compute_plan, queue="statistics", apart_from_worker=True)
