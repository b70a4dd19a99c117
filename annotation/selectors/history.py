"""Reading label history: each stored version beside the one before it (who, when, before, after)."""
from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from django.db.models import F, Window
from django.db.models.functions import Lag

from taxonomy.models import Category

from ..models import NOT_RELEVANT, Label, Study
from ..permissions import can_view_history

KINDS = {"+": "created", "~": "changed", "-": "deleted"}
_TRACKED = ["is_relevant", "type_id", "theme_id", "sub_theme_id", "note"]


@dataclass
class Change:
    label_id: int
    round: int
    issue: str
    issue_id: int
    annotator: str
    changed_at: object
    changed_by: str
    kind: str
    before: str
    after: str
    note_before: str
    note_after: str


def _code(codes: dict[int, str], relevant, type_id, theme_id, sub_id) -> str:
    if relevant is None:
        return ""
    if not relevant:
        return NOT_RELEVANT
    return codes.get(sub_id or theme_id or type_id, "")


def _records(study: Study, issue_id: int | None, allowed: bool):
    history = Label.history.filter(study_id=study.pk) if allowed else Label.history.none()
    if issue_id is not None:
        history = history.filter(issue_id=issue_id)
    lag = {f"prev_{name}": Window(Lag(name), partition_by=[F("id")], order_by=[F("history_date").asc(),
                                                                             F("history_id").asc()])
           for name in _TRACKED}
    return (
        history.annotate(**lag)
        .select_related("history_user")
        .values("id", "history_id", "history_date", "history_type", "history_user__username", "round__number",
                "issue_id", "issue__source__full_name", "issue__number", "annotator__username",
                *_TRACKED, *lag)
        .order_by("-history_date", "-history_id")
    )


class _Changes:
    """A lazily sliced sequence, so the paginator reads one page of history, not all of it."""

    def __init__(self, study: Study, issue_id: int | None, allowed: bool):
        self.records = _records(study, issue_id, allowed)
        self.codes = dict(Category.objects.filter(codebook=study.codebook_id).values_list("pk", "code"))

    def count(self) -> int:
        return self.records.count()

    def __len__(self) -> int:
        return self.count()

    def _change(self, row: dict) -> Change:
        return Change(
            label_id=row["id"], round=row["round__number"], issue_id=row["issue_id"],
            issue=f"{row['issue__source__full_name']}#{row['issue__number']}",
            annotator=row["annotator__username"], changed_at=row["history_date"],
            changed_by=row["history_user__username"] or "", kind=KINDS.get(row["history_type"], row["history_type"]),
            before=_code(self.codes, row["prev_is_relevant"], row["prev_type_id"], row["prev_theme_id"],
                         row["prev_sub_theme_id"]),
            after=_code(self.codes, row["is_relevant"], row["type_id"], row["theme_id"], row["sub_theme_id"]),
            note_before=row["prev_note"] or "", note_after=row["note"],
        )

    def __getitem__(self, key):
        if isinstance(key, slice):
            return [self._change(row) for row in self.records[key]]
        return self._change(self.records[key])

    def __iter__(self) -> Iterator[Change]:
        for row in self.records.iterator(chunk_size=2000):
            yield self._change(row)


def label_changes(viewer, study: Study, issue_id: int | None = None) -> _Changes:
    """Newest first. A change's "before" is the label's previous stored version; a creation has none. Empty for
    a viewer who may not see the history (annotation.permissions.can_view_history: the blind rule included)."""
    return _Changes(study, issue_id, can_view_history(viewer, study))

