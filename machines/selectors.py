"""Reads for machine raters: the human panel as plain mappings, a rater's labels of record, and the one rule of
who may see a machine's label of a report."""
from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass

from django.db.models import QuerySet

from annotation.models import NOT_RELEVANT, Assignment, FinalLabel, Label, Study
from annotation.permissions import BLIND_PHASES, can_manage_seeing_labels, can_view_all_labels
from annotation.selectors.labels import counted_in_round
from annotation.selectors.studies import agreement_round
from stats.ties import final_label, modal_label
from taxonomy.models import Category

from .measures import Chain, measure
from .models import MachineLabel, MachineRater, MachineRun


@dataclass
class Panel:
    """The independent round's labels, by annotator, and each report's reference type (final, else plurality;
    "" while tied) — what a machine is measured against."""

    humans: dict[str, dict[int, Chain]]
    reference_types: dict[int, str]
    finals: dict[int, Chain]


def _codes(study: Study) -> dict[int, str]:
    return dict(Category.objects.filter(codebook=study.codebook_id).values_list("pk", "code"))


def _chain(codes: dict[int, str], relevant: bool, type_id, theme_id, sub_id) -> Chain:
    if not relevant:
        return NOT_RELEVANT, None, None
    return codes[type_id], codes.get(theme_id), codes.get(sub_id)


def finals(study: Study) -> dict[int, Chain]:
    codes = _codes(study)
    rows = FinalLabel.objects.filter(study=study).order_by().values_list(
        "issue_id", "is_relevant", "type_id", "theme_id", "sub_theme_id")
    return {issue: _chain(codes, *rest) for issue, *rest in rows}


def panel(study: Study) -> Panel:
    codes = _codes(study)
    round = agreement_round(study)
    humans: dict[str, dict[int, Chain]] = defaultdict(dict)
    if round is not None:
        rows = counted_in_round(round).order_by().values_list(
            "annotator__username", "issue_id", "is_relevant", "type_id", "theme_id", "sub_theme_id")
        for name, issue, *rest in rows.iterator(chunk_size=20000):
            humans[name][issue] = _chain(codes, *rest)
    decided = finals(study)
    reference: dict[int, str] = {}
    by_report: dict[int, list[str]] = defaultdict(list)
    for labels in humans.values():
        for issue, chain in labels.items():
            by_report[issue].append(chain[0])
    for issue, types in by_report.items():
        chosen = decided[issue][0] if issue in decided else modal_label(types)
        # A report whose type the annotators tie on stays, with no type ("") to place it: type-level figures
        # use every report, as the alternative annotator test's authors do; per-type figures say they left it.
        reference[issue] = chosen if chosen is not None else ""
    return Panel(dict(humans), reference, decided)


def training_labels(study: Study, panel_: Panel, use: str) -> dict[int, Chain]:
    """What the built-in model learns from: final labels (where there is one, else the votes' settled label),
    or only the settled label of the votes (`use` = "plurality")."""
    by_report: dict[int, list[Chain]] = defaultdict(list)
    for labels in panel_.humans.values():
        for issue, chain in labels.items():
            by_report[issue].append(chain)
    out = {}
    for issue, chains in by_report.items():
        settled = final_label(chains)
        if settled is not None:
            out[issue] = settled[0]
    if use != MachineRater.Training.PLURALITY:
        out.update(panel_.finals)
    return out


def latest_run(rater: MachineRater) -> MachineRun | None:
    return rater.runs.filter(status=MachineRun.Status.SUCCEEDED).order_by("-finished_at", "-pk").first()


def run_labels(run: MachineRun | None, issue_ids=None, id_range: tuple[int, int] | None = None
               ) -> tuple[dict[int, Chain | None], list[dict[int, Chain | None]]]:
    """A run's label of record per report (its first attempt that parsed) and every attempt as its own run;
    `issue_ids` or `id_range` (first, last): of those reports only."""
    if run is None:
        return {}, []
    attempts: dict[int, dict[int, Chain | None]] = defaultdict(dict)
    rows = MachineLabel.objects.filter(run=run)
    if issue_ids is not None:
        rows = rows.filter(issue_id__in=issue_ids)
    if id_range is not None:
        rows = rows.filter(issue_id__gte=id_range[0], issue_id__lte=id_range[1])
    rows = rows.order_by("issue_id", "attempt").values_list(
        "issue_id", "attempt", "unparseable", "type_code", "theme_code", "sub_theme_code")
    record: dict[int, Chain | None] = {}
    for issue, attempt, unparseable, type_code, theme, sub in rows.iterator(chunk_size=20000):
        chain = None if unparseable or not type_code else (type_code, theme or None, sub or None)
        attempts[attempt][issue] = chain
        if record.get(issue) is None:
            record[issue] = chain
    return record, [attempts[a] for a in sorted(attempts)]


def raters_of(study: Study) -> QuerySet[MachineRater]:
    return MachineRater.objects.filter(study=study).order_by("name")


def may_see_machine_labels(viewer, study: Study, issue_id: int) -> bool:
    """The rule that never bends: a machine's label of a report reaches a person only outside the blind rounds,
    only if they may see everyone's labels, and only once they have saved their own label of that report — or
    when they labeled nothing in the study and have not this report waiting in a queue (an admin, or a lead who
    does not label), so nothing of theirs can be anchored."""
    if study.phase in BLIND_PHASES or not can_view_all_labels(viewer, study):
        return False
    if _has_labeled(viewer, study, issue_id):
        return True
    # Someone who labeled nothing in the study, and has not this report waiting in an open round's queue.
    return can_manage_seeing_labels(viewer, study) and not (
        Label.objects.filter(study=study, annotator=viewer).exists()
        or Assignment.objects.filter(queue__round__study=study, queue__round__closed_at__isnull=True,
                                     queue__annotator=viewer, issue_id=issue_id, done=False).exists())


def _has_labeled(viewer, study: Study, issue_id: int) -> bool:
    return viewer.is_authenticated and Label.objects.filter(study=study, issue_id=issue_id, annotator=viewer).exists()


def labels_of_report(viewer, study: Study, issue_id: int) -> list[tuple[MachineRater, list[MachineLabel]]]:
    """Each machine's labels of one report from its labels of record; nothing when the viewer may not see them."""
    if not may_see_machine_labels(viewer, study, issue_id):
        return []
    out = []
    for rater in raters_of(study):
        run = latest_run(rater)
        if run is not None:
            labels = list(MachineLabel.objects.filter(run=run, issue_id=issue_id).order_by("attempt"))
            if labels:
                out.append((rater, labels))
    return out


@dataclass
class MachineLabels:
    """A rater's labels of record (its newest succeeded run), each attempt, and the study's other machines'."""

    run: MachineRun
    record: dict[int, Chain | None]
    attempts: list[dict[int, Chain | None]]
    others: dict[str, dict[int, Chain | None]]


def machine_labels(rater: MachineRater) -> MachineLabels | None:
    run = latest_run(rater)
    if run is None:
        return None
    record, attempts = run_labels(run)
    others = {}
    for other in raters_of(rater.study).exclude(pk=rater.pk):
        labels, _ = run_labels(latest_run(other))
        if labels:
            others[other.name] = labels
    return MachineLabels(run, record, attempts, others)


def measurement(rater: MachineRater, *, level: str, type_code: str = "", epsilon: float = 0.15,
                only: set[int] | None = None, the_panel: Panel | None = None,
                loaded: MachineLabels | None = None) -> dict | None:
    """The rater's labels of record measured against the panel at one level and type (and only on the reports
    `only` names, e.g. the sentinels); None before the rater has a run that succeeded. `loaded` saves reading
    the labels again when one rater is measured at several levels."""
    loaded = loaded or machine_labels(rater)
    if loaded is None:
        return None
    the_panel = the_panel or panel(rater.study)
    reference = the_panel.reference_types
    if only is not None:
        reference = {r: t for r, t in reference.items() if r in only}
    result = measure(the_panel.humans, reference, loaded.record, level=level, type_code=type_code,
                     epsilon=epsilon, runs=loaded.attempts if len(loaded.attempts) > 1 else (),
                     machines=loaded.others)
    result["run"] = loaded.run.pk
    return result


def scopes(study: Study) -> list[tuple[str, str]]:
    """(level, type) pairs a machine is measured at: the type itself, then theme and sub-theme per type."""
    from taxonomy.selectors import types_of  # deferred: only the full report needs the codebook's types

    codes = [t.code for t in types_of(study.codebook)]
    return [("type", ""), *((level, code) for code in codes for level in ("theme", "sub_theme"))]


def full_report(rater: MachineRater, *, epsilon: float = 0.15, the_panel: Panel | None = None) -> list[dict]:
    """The rater measured at every level and type (for the command, the export and study.json)."""
    the_panel = the_panel or panel(rater.study)
    loaded = machine_labels(rater)
    if loaded is None:
        return []
    out = []
    for level, type_code in scopes(rater.study):
        figures = measurement(rater, level=level, type_code=type_code, epsilon=epsilon, the_panel=the_panel,
                              loaded=loaded)
        if figures is not None:
            out.append(figures)
    return out


def describe(rater: MachineRater) -> dict:
    """What reproduces the rater, and its runs."""
    return {"name": rater.name, "kind": rater.kind, "training": rater.training, "settings": rater.settings,
            "created_at": rater.created_at.isoformat(),
            "runs": [{"id": run.pk, "status": run.status, "total": run.total, "done": run.done, "cached": run.cached,
                      "unparseable": run.unparseable, "failed": run.failed, "prompt_version": run.prompt_version,
                      "prompt_hash": run.prompt_hash, "model_reported": run.model_reported,
                      "started_at": run.started_at and run.started_at.isoformat(),
                      "finished_at": run.finished_at and run.finished_at.isoformat(), "message": run.message}
                     for run in rater.runs.order_by("pk")]}


def confidences(run: MachineRun, of_type: bool = False) -> dict[int, float]:
    """How sure the run was of each report's label of record: the built-in model's probability of it, or, for a
    language model, the share of its k runs on the report that gave that label (an unparseable one agrees with
    nothing). `of_type`: of the label's type alone, as a jury deciding types needs; a built-in run made before
    that was kept gives its confidence in type and theme together, never more than in the type alone."""
    if run.rater.kind == MachineRater.Kind.BUILTIN:
        rows = MachineLabel.objects.filter(run=run, confidence__isnull=False)
        if of_type:
            return {issue: of_the_type if of_the_type is not None else pair for issue, pair, of_the_type
                    in rows.values_list("issue_id", "confidence", "type_confidence")}
        return dict(rows.values_list("issue_id", "confidence"))
    record, attempts = run_labels(run)
    runs = max(1, len(attempts))

    def same(given, chain) -> bool:
        return given is not None and given[0] == chain[0] if of_type else given == chain

    return {issue: sum(1 for a in attempts if same(a.get(issue), chain)) / runs
            for issue, chain in record.items() if chain is not None}


def type_votes(raters, ids: Sequence[int]) -> tuple[list[list[str | None]], list[list[float | None]]]:
    """What a jury of `raters` says of each report of `ids`: each member's type of record (None where it gave
    none) and how sure it was of that type (`confidences`). LookupError naming a member with no run that
    succeeded."""
    votes, sure = [], []
    for rater in raters:
        run = latest_run(rater)
        if run is None:
            raise LookupError(rater.name)
        record, _ = run_labels(run)
        doubt = confidences(run, of_type=True)
        votes.append([record[i][0] if record.get(i) else None for i in ids])
        sure.append([doubt.get(i) for i in ids])
    return votes, sure
