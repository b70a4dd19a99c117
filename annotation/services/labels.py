from __future__ import annotations

from dataclasses import dataclass

from django.core.exceptions import PermissionDenied
from django.db import IntegrityError, transaction

from ingest.models import Issue
from taxonomy.models import Category

from ..models import Label, Round
from ..permissions import can_label


class LabelError(ValueError):
    """A label that breaks a codebook rule; `field` names the form field at fault."""

    def __init__(self, field: str, message: str):
        super().__init__(f"{field}: {message}")
        self.field = field
        self.message = message


@dataclass(frozen=True)
class LabelInput:
    is_relevant: bool = True
    type_id: int | None = None
    theme_id: int | None = None
    sub_theme_id: int | None = None
    note: str = ""


def _category(round: Round, pk: int | None, level: str, parent: Category | None, field: str) -> Category | None:
    if pk is None:
        return None
    category = Category.objects.filter(pk=pk, taxonomy=round.study.taxonomy_id, level=level).first()
    if category is None:
        raise LabelError(field, f"no {level.replace('_', '-')} with id {pk} in this study's codebook")
    if parent is not None and category.parent_id != parent.pk:
        raise LabelError(field, f"{category.code} does not belong to {parent.code}")
    return category


def _validated(round: Round, data: LabelInput) -> dict:
    if not data.is_relevant:
        if data.type_id or data.theme_id or data.sub_theme_id:
            raise LabelError("type", "a report marked not relevant takes no type, theme or sub-theme")
        return {"is_relevant": False, "type": None, "theme": None, "sub_theme": None}
    if data.type_id is None:
        raise LabelError("type", "choose a type, or mark the report not relevant")
    type_ = _category(round, data.type_id, Category.Level.TYPE, None, "type")
    theme = _category(round, data.theme_id, Category.Level.THEME, type_, "theme")
    if theme is None and type_.children.exists():
        raise LabelError("theme", f"choose a theme of {type_.name}")
    if data.sub_theme_id and theme is None:
        raise LabelError("sub_theme", "a sub-theme needs its theme")
    sub_theme = _category(round, data.sub_theme_id, Category.Level.SUB_THEME, theme, "sub_theme")
    return {"is_relevant": True, "type": type_, "theme": theme, "sub_theme": sub_theme}


def submit_label(user, round: Round, issue: Issue, data: LabelInput) -> Label:
    """Record the user's label for a report; a second submission revises it, and history keeps the first."""
    study = round.study
    if not can_label(user, study):
        raise PermissionDenied("Only members of the study can label its reports.")
    if not round.is_open:
        raise LabelError("round", f"round {round.number} is closed; its labels can no longer change")
    if not study.issues.filter(pk=issue.pk).exists():
        raise LabelError("issue", f"report {issue} is not part of study {study}")
    fields = _validated(round, data) | {"note": data.note.strip()}
    key = {"study": study, "round": round, "issue": issue, "annotator": user}
    for attempt in range(2):
        try:
            with transaction.atomic():
                label, _ = Label.objects.select_for_update().update_or_create(**key, defaults=fields)
                return label
        except IntegrityError:
            # A concurrent first submission won the insert; the retry updates that row instead.
            if attempt:
                raise
    raise AssertionError("unreachable")
