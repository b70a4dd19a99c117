"""Pure: which records a source keeps: the date window first, then, for framework
sources, at least one keyword; toolkit sources keep everything in the window."""
from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from typing import NamedTuple

from .importers import IssueRecord
from .keywords import KeywordMatcher
from .normalise import match_text

PULL_REQUEST = "pull_request"
OUTSIDE_WINDOW = "outside_window"


@dataclass(frozen=True)
class FilterRules:
    terms: tuple[str, ...] | None  # None: keep every issue (a toolkit source)
    created_from: dt.date | None = None
    created_to: dt.date | None = None


class Verdict(NamedTuple):
    """A tuple, not a dataclass: worker processes send tens of thousands of these, and tuples pickle fast."""

    record: IssueRecord | None
    outcome: str  # PULL_REQUEST, OUTSIDE_WINDOW, or "" for a record to store
    kept: bool = False
    terms: frozenset[str] = frozenset()
    number: str = ""
    # The row already in binary COPY format, when a worker process rendered it (see copy_rows).
    copy_line: bytes | None = None
    warnings: tuple[str, ...] = ()


class RecordFilter:
    def __init__(self, rules: FilterRules):
        self.rules = rules
        self.matcher = KeywordMatcher(rules.terms) if rules.terms is not None else None

    def _in_window(self, created_at) -> bool:
        start, end = self.rules.created_from, self.rules.created_to
        if created_at is None or (start is None and end is None):
            return True
        day = created_at.date()
        return (start is None or day >= start) and (end is None or day <= end)

    def judge(self, record: IssueRecord | None) -> Verdict:
        if record is None:
            return Verdict(None, PULL_REQUEST)
        if not self._in_window(record.created_at):
            return Verdict(None, OUTSIDE_WINDOW)
        if self.matcher is None:
            return Verdict(record, "", kept=True, number=record.number, warnings=record.warnings)
        terms = frozenset(self.matcher.matches(match_text(record.title + "\n" + record.body)))
        return Verdict(record, "", kept=bool(terms), terms=terms, number=record.number, warnings=record.warnings)
