"""Explanatory details: the notes annotators wrote with their labels, gathered per category, and the short
list the lead curates from them (as the study published its bug symptoms beside the taxonomy)."""
from __future__ import annotations

from collections.abc import Iterator

from django.core.exceptions import PermissionDenied
from django.db.models import Q

from annotation.models import Label
from annotation.permissions import can_manage
from concord.csv_stream import csv_lines
from taxonomy.models import Category, Detail, Taxonomy
from taxonomy.services import CodebookError

DETAIL_COLUMNS = ["type", "theme", "sub_theme", "code", "category", "detail", "example_reports"]


def notes_for(study, category: Category, limit: int = 500):
    """Labels of the study that chose this category and say something, newest first."""
    return (Label.objects.filter(study=study).filter(Q(type=category) | Q(theme=category) | Q(sub_theme=category))
            .exclude(note="").select_related("annotator", "issue__source").order_by("-updated_at")[:limit])


def add_detail(study, user, category: Category, text: str, example_ids: list[int]) -> Detail:
    if not can_manage(user, study):
        raise PermissionDenied("Only the study's lead curates explanatory details.")
    if not text.strip():
        raise CodebookError("text: write the detail")
    position = category.details.count()
    detail = Detail.objects.create(category=category, text=text.strip(), position=position, added_by=user)
    detail.examples.set(example_ids)
    return detail


def remove_detail(study, user, detail_id: int) -> None:
    if not can_manage(user, study):
        raise PermissionDenied("Only the study's lead curates explanatory details.")
    Detail.objects.filter(pk=detail_id, category__taxonomy=study.taxonomy_id).delete()


def details_rows(taxonomy: Taxonomy) -> Iterator[str]:
    def rows():
        details = (Detail.objects.filter(category__taxonomy=taxonomy)
                   .select_related("category__parent__parent").prefetch_related("examples__source")
                   .order_by("category__position", "position"))
        for d in details:
            chain = [d.category]
            while chain[-1].parent_id:
                chain.append(chain[-1].parent)
            names = [c.name for c in reversed(chain)] + [""] * (3 - len(chain))
            examples = " ".join(i.url or f"{i.source.full_name}#{i.number}" for i in d.examples.all())
            yield [*names, d.category.code, d.category.name, d.text, examples]

    return csv_lines(DETAIL_COLUMNS, rows())
