"""Writes fetched or imported issue records for one source: date window, keyword filter, upsert, matches.

Used alike by file imports and API ingests, so both count and filter the same way.
"""
from __future__ import annotations

import datetime as dt
from dataclasses import asdict, dataclass

from django.db import transaction

from .importers import IssueRecord
from .keywords import KeywordMatcher, normalise_term
from .models import Issue, Source
from .normalise import match_text

UPSERT_FIELDS = [
    "url", "title", "body", "author", "state", "platform_labels", "created_at", "closed_at",
    "source_updated_at", "comment_count", "comments", "payload", "kept",
]


@dataclass
class Counts:
    fetched: int = 0
    created: int = 0
    updated: int = 0
    skipped_pull_requests: int = 0
    filtered_out: int = 0

    def as_dict(self) -> dict[str, int]:
        return asdict(self)

    def summary(self, verb: str) -> str:
        return (f"{self.fetched} {verb}: {self.created} new, {self.updated} updated, "
                f"{self.skipped_pull_requests} pull requests skipped, {self.filtered_out} filtered out")


def _in_window(created_at, start: dt.date | None, end: dt.date | None) -> bool:
    if created_at is None or (start is None and end is None):
        return True
    day = created_at.date()
    return (start is None or day >= start) and (end is None or day <= end)


class IssueWriter:
    """Collects records and writes them in batches; `counts` says what happened so far."""

    def __init__(self, source: Source, batch_size: int = 1000):
        self.source = source
        self.batch_size = batch_size
        self.counts = Counts()
        self._batch: dict[str, tuple[IssueRecord, bool, set[str]]] = {}
        keywords = source.keyword_list.keywords.all() if source.keyword_list_id else []
        self.keyword_ids = {normalise_term(k.term): k.pk for k in keywords}
        # DESIGN step 3: framework sources keep only keyword matches; toolkit sources keep everything.
        self.matcher = KeywordMatcher(self.keyword_ids) if source.is_filtered else None

    def add(self, record: IssueRecord | None) -> None:
        """Take one record (None for a pull request); writes when a batch is full."""
        self.counts.fetched += 1
        if record is None:
            self.counts.skipped_pull_requests += 1
            return
        if not _in_window(record.created_at, self.source.created_from, self.source.created_to):
            self.counts.filtered_out += 1
            return
        terms: set[str] = set()
        kept = True
        if self.matcher is not None:
            terms = self.matcher.matches(match_text(record.title + "\n" + record.body))
            kept = bool(terms)
        if not kept:
            self.counts.filtered_out += 1
        # The same number twice in one batch: the later record is the newer state.
        self._batch[record.number] = (record, kept, terms)
        if len(self._batch) >= self.batch_size:
            self.flush()

    def flush(self) -> None:
        if not self._batch:
            return
        batch, self._batch = self._batch, {}
        with transaction.atomic():
            existing = set(
                Issue.objects.filter(source=self.source, number__in=list(batch)).values_list("number", flat=True)
            )
            rows = [
                Issue(source=self.source, number=number, kept=kept,
                      **{f: getattr(record, f) for f in UPSERT_FIELDS if f != "kept"})
                for number, (record, kept, _terms) in batch.items()
            ]
            Issue.objects.bulk_create(
                rows, update_conflicts=True, unique_fields=["source", "number"], update_fields=UPSERT_FIELDS
            )
            self._write_matches(rows, [terms for _r, _k, terms in batch.values()])
        self.counts.created += len(batch) - len(existing)
        self.counts.updated += len(existing)

    def _write_matches(self, rows: list[Issue], terms_per_row: list[set[str]]) -> None:
        if self.matcher is None:
            return
        through = Issue.matched_keywords.through
        through.objects.filter(issue_id__in=[r.pk for r in rows]).delete()
        through.objects.bulk_create([
            through(issue_id=row.pk, keyword_id=self.keyword_ids[term])
            for row, terms in zip(rows, terms_per_row, strict=True) for term in terms
        ])
