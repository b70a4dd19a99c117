"""The only ORM reader in agreement/: builds rating tables for a study and calls the pure maths."""
from __future__ import annotations

from dataclasses import dataclass

from annotation.models import NOT_RELEVANT, Label, Round
from taxonomy.models import Category
from taxonomy.selectors import types_of

from .kappa import FleissResult, fleiss
from .ties import modal_label


@dataclass
class TypeAgreement:
    type: Category
    result: FleissResult


@dataclass
class StudyAgreement:
    round: Round
    by_type: FleissResult
    per_type: list[TypeAgreement]
    tied_type: list[int]  # issue ids whose type vote is tied, so they have no final type yet


def _rating_rows(round: Round):
    labels = Label.objects.filter(round=round).values_list(
        "issue_id", "annotator_id", "is_relevant", "type__code", "theme__code"
    )
    for issue_id, annotator_id, is_relevant, type_code, theme_code in labels:
        if not is_relevant:
            yield issue_id, annotator_id, NOT_RELEVANT, NOT_RELEVANT
        else:
            yield issue_id, annotator_id, type_code, theme_code or type_code


def study_agreement(round: Round) -> StudyAgreement:
    """Fleiss' kappa for the type, and per type at theme level (DESIGN step 9, as the study computed it).

    Per type T the subjects are the reports whose majority type is T; the categories are the distinct
    theme labels raters gave them, a label of another type counting as a category of its own.
    """
    type_ratings: dict[int, list[str]] = {}
    theme_ratings: dict[int, list[str]] = {}
    for issue_id, _annotator, type_code, theme_code in _rating_rows(round):
        type_ratings.setdefault(issue_id, []).append(type_code)
        theme_ratings.setdefault(issue_id, []).append(theme_code)
    n_raters = max((len(v) for v in type_ratings.values()), default=0)
    final_type = {issue: modal_label(codes) for issue, codes in type_ratings.items()}
    per_type = []
    for type_ in types_of(round.study.taxonomy):
        subjects = {i: theme_ratings[i] for i, t in final_type.items() if t == type_.code}
        per_type.append(TypeAgreement(type=type_, result=fleiss(subjects, n_raters)))
    return StudyAgreement(
        round=round,
        by_type=fleiss(type_ratings, n_raters),
        per_type=per_type,
        tied_type=sorted(i for i, t in final_type.items() if t is None),
    )


def _figure(result: FleissResult) -> dict:
    return {
        "kappa": result.kappa,
        "undefined_because": result.undefined_because or None,
        "reports": result.n_subjects,
        "raters": result.n_raters,
        "categories": result.categories,
        "left_out": len(result.left_out),
        "left_out_reasons": sorted({reason for _, reason in result.left_out}),
    }


def agreement_figures(agreement: StudyAgreement) -> dict:
    """The figures as plain JSON, for the API and task results."""
    return {
        "round": agreement.round.number,
        "type": _figure(agreement.by_type),
        "per_type": [
            {"type": t.type.code, "name": t.type.name, "theme": _figure(t.result)} for t in agreement.per_type
        ],
        "tied_type_reports": len(agreement.tied_type),
    }
