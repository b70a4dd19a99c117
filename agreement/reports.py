"""The only ORM reader in agreement/: builds rating tables for a study's round and calls the pure maths."""
from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field

from annotation.models import NOT_RELEVANT, Decision, Label, Round
from taxonomy.models import Category
from taxonomy.selectors import types_of

from .alpha import alpha_figure
from .figures import Figure
from .kappa import fleiss_figure
from .raters import RaterAgreement, rater_agreement
from .ties import controversial_levels, modal_label

LEVELS = ("theme", "sub_theme")
RESAMPLES = 1000


@dataclass
class TypeAgreement:
    type: Category
    fleiss: Figure
    alpha: Figure

    @property
    def result(self) -> Figure:
        return self.fleiss


@dataclass
class StudyAgreement:
    round: Round
    level: str
    basis: str  # what decided each report's type for the per-type figures
    by_type: Figure
    type_alpha: Figure
    per_type: list[TypeAgreement]
    raters: list[RaterAgreement]
    controversial: dict[str, int] = field(default_factory=dict)
    no_type: list[int] = field(default_factory=list)  # reports with no final type and a tied plurality


@dataclass
class _Rows:
    """One round's labels, per report: rater → (type, theme, sub-theme) codes (NR for not relevant)."""

    by_issue: dict[int, dict[str, tuple[str, str | None, str | None]]]


def _rows(round: Round) -> _Rows:
    codes = dict(Category.objects.filter(taxonomy=round.study.taxonomy_id).values_list("pk", "code"))
    by_issue: dict[int, dict] = defaultdict(dict)
    for issue_id, rater, relevant, type_id, theme_id, sub_id in Label.objects.filter(round=round).values_list(
        "issue_id", "annotator__username", "is_relevant", "type_id", "theme_id", "sub_theme_id"
    ).iterator(chunk_size=10000):
        by_issue[issue_id][rater] = (
            (codes[type_id], codes.get(theme_id), codes.get(sub_id)) if relevant else (NOT_RELEVANT, None, None)
        )
    # Reports in id order, so that a seeded bootstrap draws the same resamples on every run.
    return _Rows(dict(sorted(by_issue.items())))


def _final_types(round: Round, rows: _Rows) -> tuple[dict[int, str | None], str]:
    decided = {
        issue_id: (type_code or NOT_RELEVANT)
        for issue_id, type_code in Decision.objects.filter(study=round.study_id).values_list("issue_id",
                                                                                             "type__code")
    }
    final = {}
    for issue_id, by_rater in rows.by_issue.items():
        final[issue_id] = decided.get(issue_id) or modal_label([t for t, _, _ in by_rater.values()])
    basis = "final labels" if decided else "plurality of the labels (no final labels yet)"
    if decided and len(decided) < len(rows.by_issue):
        basis = "final labels where decided, else the plurality of the labels"
    return final, basis


def _at_level(label: tuple[str, str | None, str | None], level: str) -> str | None:
    type_code, theme, sub = label
    if type_code == NOT_RELEVANT:
        return NOT_RELEVANT
    # A rater who stopped above the level gave no rating at it (sub-themes are optional).
    return theme if level == "theme" else sub


def study_agreement(round: Round, level: str = "theme", resamples: int = RESAMPLES, seed: int = 0) -> StudyAgreement:
    """Every figure of the dashboard for one round (DESIGN step 9, as the study computed its kappas).

    Type: all reports, "not relevant" a category of its own. Per type T at `level`: the reports whose final
    (or, before adjudication, plurality) type is T, the categories being the distinct labels raters gave, a
    label of another type counting as a category of its own.
    """
    if level not in LEVELS:
        raise ValueError(f"level: one of {', '.join(LEVELS)}")
    rows = _rows(round)
    n_raters = max((len(v) for v in rows.by_issue.values()), default=0)
    type_ratings = {i: [lab[0] for lab in by_rater.values()] for i, by_rater in rows.by_issue.items()}
    final, basis = _final_types(round, rows)
    per_type = []
    for type_ in types_of(round.study.taxonomy):
        issues = [i for i, t in final.items() if t == type_.code]
        complete = {i: [_at_level(lab, level) for lab in rows.by_issue[i].values()] for i in issues}
        fleiss_ratings = {i: v for i, v in complete.items() if None not in v}
        fleiss = fleiss_figure(fleiss_ratings, level=level, type=type_.code, n_raters=n_raters,
                               resamples=resamples, seed=seed)
        fleiss.left_out += [(i, f"no {level.replace('_', '-')} from every rater") for i, v in complete.items()
                            if None in v]
        per_type.append(TypeAgreement(type=type_, fleiss=fleiss,
                                      alpha=alpha_figure(complete, level=level, type=type_.code)))
    controversial: dict[str, int] = {"type": 0, "theme": 0, "sub_theme": 0}
    for by_rater in rows.by_issue.values():
        for tied in controversial_levels(list(by_rater.values())):
            controversial[tied] += 1
    return StudyAgreement(
        round=round, level=level, basis=basis,
        by_type=fleiss_figure(type_ratings, level="type", n_raters=n_raters, resamples=resamples, seed=seed),
        type_alpha=alpha_figure(type_ratings, level="type"),
        per_type=per_type,
        raters=rater_agreement({i: {r: lab[0] for r, lab in v.items()} for i, v in rows.by_issue.items()}),
        controversial=controversial,
        no_type=sorted(i for i, t in final.items() if t is None),
    )


def _figure(figure: Figure) -> dict:
    data = figure.as_dict()
    data.update(reports=figure.n_reports, raters=figure.n_raters)
    if figure.method.startswith("Fleiss"):
        data["kappa"] = figure.value
    return data


def agreement_figures(agreement: StudyAgreement) -> dict:
    """The figures as plain JSON, for the API, the command and task results."""
    return {
        "round": agreement.round.number,
        "level": agreement.level,
        "basis": agreement.basis,
        "type": _figure(agreement.by_type),
        "type_alpha": _figure(agreement.type_alpha),
        "per_type": [
            {"type": t.type.code, "name": t.type.name, "fleiss": _figure(t.fleiss), "alpha": _figure(t.alpha)}
            for t in agreement.per_type
        ],
        "raters": [vars(r) for r in agreement.raters],
        "controversial": agreement.controversial,
        "no_type_reports": len(agreement.no_type),
    }
