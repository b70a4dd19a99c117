"""Every stored version of every label of a study, as CSV: who changed it, when, before and after."""
from __future__ import annotations

from collections.abc import Iterator

from concord.csv_stream import csv_lines

from ..models import Study
from ..selectors.history import label_changes

HISTORY_COLUMNS = [
    "study", "round", "source", "number", "annotator", "changed_at", "changed_by", "kind",
    "before", "after", "note_before", "note_after",
]


def history_csv_rows(viewer, study: Study) -> Iterator[str]:
    rows = (
        [study.name, c.round, *c.issue.rsplit("#", 1), c.annotator, c.changed_at.isoformat(), c.changed_by,
         c.kind, c.before, c.after, c.note_before, c.note_after]
        for c in label_changes(viewer, study)
    )
    return csv_lines(HISTORY_COLUMNS, rows)
