"""Corpus exports. Every row can be traced back to one stored label."""
from __future__ import annotations

from collections.abc import Iterator

from concord.csv_stream import csv_lines
from taxonomy.models import Category

from ..models import Label, Study

CSV_COLUMNS = [
    "study", "round", "round_kind", "source", "number", "url", "title", "annotator", "relevant",
    "type_code", "type", "theme_code", "theme", "sub_theme_code", "sub_theme", "note", "labeled_at",
]


def label_csv_rows(study: Study) -> Iterator[str]:
    """One CSV row per report and annotator label, header first; streamed, so big studies fit in memory. Plain
    values with the codebook looked up in a dict: model instances for 280,000 labels took half a minute."""
    names = {pk: (code, name) for pk, code, name in
             Category.objects.filter(codebook=study.codebook_id).values_list("pk", "code", "name")}
    labels = (
        Label.objects.filter(study=study)
        .order_by("issue__source__full_name", "issue__created_at", "issue_id", "round__number", "annotator__username")
        .values_list("round__number", "round__kind", "issue__source__full_name", "issue__number", "issue__url",
                     "issue__title", "annotator__username", "is_relevant", "type_id", "theme_id", "sub_theme_id",
                     "note", "updated_at")
    )
    return csv_lines(CSV_COLUMNS, _label_rows(study, labels, names))


def _label_rows(study: Study, labels, names: dict) -> Iterator[list]:
    blank = ("", "")
    for number, kind, source, issue_number, url, title, who, relevant, type_id, theme_id, sub_id, note, when \
            in labels.iterator(chunk_size=5000):
        yield [
            study.name, number, kind, source, issue_number, url, title, who, "yes" if relevant else "no",
            *names.get(type_id, blank), *names.get(theme_id, blank), *names.get(sub_id, blank),
            note, when.isoformat(),
        ]
