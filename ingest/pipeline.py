"""Writes fetched or imported issue records for one source: date window, keyword filter, upsert, matches.

Used alike by file imports and API ingests, so both count and filter the same way.
"""
from __future__ import annotations

from dataclasses import asdict, dataclass

from django.db import transaction

from . import sql
from .filtering import OUTSIDE_WINDOW, PULL_REQUEST, FilterRules, RecordFilter, Verdict
from .importers import IssueRecord
from .keywords import normalise_term
from .models import Source


@dataclass
class Counts:
    fetched: int = 0
    created: int = 0
    updated: int = 0
    unchanged: int = 0
    skipped_pull_requests: int = 0
    filtered_out: int = 0

    def as_dict(self) -> dict[str, int]:
        return asdict(self)

    def summary(self, verb: str) -> str:
        return (f"{self.fetched} {verb}: {self.created} new, {self.updated} updated, {self.unchanged} unchanged, "
                f"{self.skipped_pull_requests} pull requests skipped, {self.filtered_out} filtered out")


class IssueWriter:
    """Collects records and writes them in batches; `counts` says what happened so far, `warnings` what was
    dropped from stored records (the first few, and how many in all)."""

    SHOWN_WARNINGS = 10

    def __init__(self, source: Source, batch_size: int = 1000, one_transaction: bool = False):
        """one_transaction: the caller writes everything in one transaction that any failure rolls back whole, so a
        batch needs no savepoint of its own. Each would be a subtransaction, and past 64 in one transaction
        PostgreSQL's snapshots overflow their cache of them, which slows every other session's reads while a big
        file is imported (a million issues is a thousand batches)."""
        self.source = source
        self.batch_size = batch_size
        self.one_transaction = one_transaction
        self.counts = Counts()
        self._batch: dict[str, Verdict] = {}
        # Candidates and rejected keywords filter nothing.
        keywords = source.keyword_list.keywords.filter(status="accepted") if source.keyword_list_id else []
        self.keyword_ids = {normalise_term(k.term): k.pk for k in keywords}
        self.rules = FilterRules(
            terms=tuple(self.keyword_ids) if source.is_filtered else None,
            created_from=source.created_from, created_to=source.created_to,
        )
        self._filter: RecordFilter | None = None
        self.warnings: list[str] = []
        self.warning_count = 0

    def judge(self, record: IssueRecord | None) -> Verdict:
        if self._filter is None:
            self._filter = RecordFilter(self.rules)
        return self._filter.judge(record)

    def add(self, record: IssueRecord | None) -> None:
        """Take one record (None for a pull request); writes when a batch is full."""
        self.add_verdict(self.judge(record))

    def add_verdict(self, verdict: Verdict) -> None:
        """Take a record already judged (by worker processes, say)."""
        self.counts.fetched += 1
        if verdict.outcome == PULL_REQUEST:
            self.counts.skipped_pull_requests += 1
            return
        if verdict.outcome == OUTSIDE_WINDOW or not verdict.kept:
            self.counts.filtered_out += 1
        if verdict.outcome == OUTSIDE_WINDOW:
            return
        if verdict.warnings:
            self.warning_count += len(verdict.warnings)
            self.warnings.extend(verdict.warnings[: self.SHOWN_WARNINGS - len(self.warnings)])
        # The same number twice in one batch: the later record is the newer state.
        self._batch[verdict.number] = verdict
        if len(self._batch) >= self.batch_size:
            self.flush()

    def summary(self, verb: str) -> str:
        """The counts, then the warnings, for the run's message."""
        text = self.counts.summary(verb)
        if self.warning_count:
            more = self.warning_count - len(self.warnings)
            text += f". {self.warning_count} warning{'s' if self.warning_count > 1 else ''}: " + "; ".join(
                self.warnings) + (f"; and {more} more" if more > 0 else "")
        return text

    def flush(self) -> None:
        if not self._batch:
            return
        batch, self._batch = self._batch, {}
        with transaction.atomic(savepoint=not self.one_transaction):
            written = sql.upsert(self.source.pk, list(batch.values()))
            self._write_matches(written, [v.terms for v in batch.values()])
        for _pk, state in written:
            if state == sql.NEW:
                self.counts.created += 1
            elif state == sql.UPDATED:
                self.counts.updated += 1
            else:
                self.counts.unchanged += 1

    def _write_matches(self, written: list[tuple[int, str]], terms_per_issue: list[frozenset[str]]) -> None:
        if self.rules.terms is None:
            return
        # Only issues that existed before can have old matches to replace (the keyword list may have changed
        # while the issue did not).
        sql.replace_matches(
            [pk for pk, state in written if state != sql.NEW],
            [(pk, self.keyword_ids[term]) for (pk, _state), terms in zip(written, terms_per_issue, strict=True)
             for term in terms],
        )
