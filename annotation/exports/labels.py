"""Corpus exports. Every row can be traced back to one stored label."""
from __future__ import annotations

from collections.abc import Iterator

from concord.csv_stream import csv_lines

from ..models import Label, Study

CSV_COLUMNS = [
    "study", "round", "round_kind", "source", "number", "url", "title", "annotator", "relevant",
    "type_code", "type", "theme_code", "theme", "sub_theme_code", "sub_theme", "note", "labeled_at",
]


def _code_name(category) -> tuple[str, str]:
    return (category.code, category.name) if category else ("", "")


def label_csv_rows(study: Study) -> Iterator[str]:
    """One CSV row per report and annotator label, header first; streamed, so big studies fit in memory."""
    labels = (
        Label.objects.filter(study=study)
        .select_related("round", "issue__source", "annotator", "type", "theme", "sub_theme")
        .order_by("issue__source__full_name", "issue__created_at", "issue_id", "round__number", "annotator__username")
    )
    return csv_lines(CSV_COLUMNS, _label_rows(study, labels))


def _label_rows(study: Study, labels) -> Iterator[list]:
    for label in labels.iterator(chunk_size=2000):
        issue = label.issue
        yield [
            study.name, label.round.number, label.round.kind, issue.source.full_name, issue.number,
            issue.url, issue.title, label.annotator.username, "yes" if label.is_relevant else "no",
            *_code_name(label.type), *_code_name(label.theme), *_code_name(label.sub_theme),
            label.note, label.updated_at.isoformat(),
        ]
