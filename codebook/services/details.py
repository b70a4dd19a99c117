"""Explanatory details: the short list the lead curates, per category, from the notes annotators wrote with their
labels (as the study published its bug symptoms beside the taxonomy)."""
from __future__ import annotations

from django.core.exceptions import PermissionDenied

from annotation.permissions import can_manage
from taxonomy.models import Category, Detail
from taxonomy.services import CodebookError


def add_detail(study, user, category: Category, text: str, example_ids: list[int]) -> Detail:
    if not can_manage(user, study):
        raise PermissionDenied("Only the study's lead curates explanatory details.")
    if not text.strip():
        raise CodebookError("text", "write the detail")
    position = category.details.count()
    detail = Detail.objects.create(category=category, text=text.strip(), position=position, added_by=user)
    detail.examples.set(example_ids)
    return detail


def remove_detail(study, user, detail_id: int) -> None:
    if not can_manage(user, study):
        raise PermissionDenied("Only the study's lead curates explanatory details.")
    Detail.objects.filter(pk=detail_id, category__codebook=study.codebook_id).delete()
