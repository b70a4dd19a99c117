"""Stored agreement snapshots. Their figures come from everyone's labels, so they are read through the blind
rule: nothing for a viewer who may not see agreement yet (annotation.permissions.can_view_agreement)."""
from __future__ import annotations

from django.db.models import Count

from annotation.models import NOT_RELEVANT
from annotation.permissions import can_view_agreement
from annotation.selectors.labels import counted_in_round
from ingest.models import Issue

from .models import AgreementSnapshot, Plan


def _snapshots(viewer, study, level: str):
    if not can_view_agreement(viewer, study):
        return AgreementSnapshot.objects.none()
    return AgreementSnapshot.objects.filter(study=study, level=level)


def latest(viewer, study, level: str) -> AgreementSnapshot | None:
    return _snapshots(viewer, study, level).order_by("-computed_at", "-id").first()


def history(viewer, study, level: str) -> list[AgreementSnapshot]:
    return list(_snapshots(viewer, study, level).order_by("computed_at", "id"))


def latest_plan(viewer, study, round, level: str) -> Plan | None:
    """The planner's latest simulations of the round at `level`, behind the same rule as the figures."""
    if not can_view_agreement(viewer, study):
        return None
    return Plan.objects.filter(round=round, level=level).order_by("-computed_at", "-id").first()


def pair_figures(snapshot: AgreementSnapshot | None, at: str, first: str, second: str) -> dict | None:
    """The snapshot's figures for a confused pair at `at` (type, or the snapshot's level), in either order; None
    when it is not among the pairs the snapshot kept."""
    if snapshot is None:
        return None
    for pair in snapshot.figures.get("confusion", {}).get(at, []):
        if {pair["first"], pair["second"]} == {first, second}:
            return pair
    return None


def _given(labels, at: str, code: str):
    return labels.filter(is_relevant=False) if code == NOT_RELEVANT else labels.filter(**{f"{at}__code": code})


def pair_reports(viewer, study, round, at: str, first: str, second: str, limit: int = 50
                 ) -> tuple[int, list[tuple[Issue, dict[str, int]]]]:
    """The reports of the round that people gave both `first` and `second` at `at`, with how many labels each
    code got on each (the first `limit`, oldest report first), and how many there are: the reports behind a
    confused pair, counted as the figures count them (people's labels only). Nothing for a viewer the blind rule
    keeps from everyone's labels."""
    if not can_view_agreement(viewer, study) or round is None:
        return 0, []
    labels = counted_in_round(round)
    both = (Issue.objects.filter(pk__in=_given(labels, at, first).values("issue"))
            .filter(pk__in=_given(labels, at, second).values("issue")).order_by("pk"))
    shown = list(both.select_related("source")[:limit])
    counts: dict[int, dict[str, int]] = {issue.pk: {first: 0, second: 0} for issue in shown}
    for code in (first, second):
        for issue_id, n in (_given(labels, at, code).filter(issue__in=[i.pk for i in shown]).order_by()
                            .values("issue").annotate(n=Count("pk")).values_list("issue", "n")):
            counts[issue_id][code] = n
    return both.count(), [(issue, counts[issue.pk]) for issue in shown]


EXAMPLES = 5  # reports named in a clarification's evidence; the pair's page lists more


def pair_evidence(viewer, study, round, snapshot: AgreementSnapshot, at: str, first: str, second: str) -> dict:
    """What a change made from a confused pair keeps as its evidence: the pair, its figures in `snapshot` (None
    when the snapshot did not keep them), how many reports people gave both, and the first of them."""
    total, shown = pair_reports(viewer, study, round, at, first, second, limit=EXAMPLES)
    # Reports by their names, the snapshot by when it was computed: ids are this database's, and a backup
    # restored elsewhere gives everything new ones.
    return {"pair": [first, second], "at": at, "level": snapshot.level,
            "computed_at": snapshot.computed_at.isoformat(), "labels": snapshot.labels,
            "figures": pair_figures(snapshot, at, first, second), "reports_given_both": total,
            "examples": [{"ref": str(issue), "title": issue.title[:200]} for issue, _ in shown]}
