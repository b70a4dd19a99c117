"""CSV with a header row. Required columns: number, title. Optional: body, author, state, labels
(separated by ";" or "|"), created_at, closed_at, updated_at, url, comments (a count)."""
from __future__ import annotations

import csv
import re
import sys
from collections.abc import Iterator

from . import ImportFileError, IssueRecord
from .text import NUL, REPLACEMENT, display_name, open_text, time_field, url_field

# Column names people use for the same field, folded to the canonical one.
ALIASES = {
    "number": "number", "issue_number": "number", "id": "number",
    "title": "title", "body": "body", "description": "body",
    "author": "author", "user": "author", "login": "author",
    "state": "state", "labels": "labels",
    "created_at": "created_at", "createdat": "created_at", "closed_at": "closed_at", "closedat": "closed_at",
    "updated_at": "updated_at", "updatedat": "updated_at",
    "url": "url", "html_url": "url", "issue_url": "url", "comments": "comments",
}
_LABEL_SPLIT = re.compile(r"\s*[;|]\s*")


def _clean(value: str | None) -> str:
    value = value or ""
    return value.replace(NUL, REPLACEMENT) if NUL in value else value


def read(path) -> Iterator[IssueRecord]:
    name = display_name(path)
    csv.field_size_limit(sys.maxsize)  # issue bodies with whole logs exceed the 128 KiB default
    with open_text(path) as f:
        reader = csv.DictReader(f)
        try:
            header = reader.fieldnames or []
        except (csv.Error, UnicodeDecodeError) as exc:
            raise ImportFileError(f"{name}, line 1: cannot read the header: {exc}") from exc
        columns = {h: ALIASES[h.strip().lower()] for h in header if h and h.strip().lower() in ALIASES}
        missing = {"number", "title"} - set(columns.values())
        if missing:
            raise ImportFileError(f"{name}, line 1: missing column(s) {', '.join(sorted(missing))}")
        try:
            for row in reader:
                where = f"{name}, line {reader.line_num}"
                data = {canonical: _clean(row.get(column)) for column, canonical in columns.items()}
                yield _record(data, row, where)
        except csv.Error as exc:
            raise ImportFileError(f"{name}, line {reader.line_num}: {exc}") from exc
        except UnicodeDecodeError as exc:
            raise ImportFileError(f"{name}, line {reader.line_num + 1}: not UTF-8 text") from exc


def _record(data: dict, row: dict, where: str) -> IssueRecord:
    if not data.get("number", "").strip():
        raise ImportFileError(f"{where}: field 'number' is empty")
    if not data.get("title", "").strip():
        raise ImportFileError(f"{where}: field 'title' is empty")
    comments = data.get("comments", "").strip()
    if comments and not comments.isdigit():
        raise ImportFileError(f"{where}: field 'comments' must be a count, got {comments!r}")
    labels = data.get("labels", "").strip()
    url, warnings = url_field(data.get("url", ""), "url", where)
    return IssueRecord(
        number=data["number"].strip().lstrip("#"),
        title=data["title"][:1000],
        body=data.get("body", ""),
        url=url,
        author=data.get("author", ""),
        state=data.get("state", "").lower(),
        platform_labels=_LABEL_SPLIT.split(labels) if labels else [],
        created_at=time_field(data, "created_at", where),
        closed_at=time_field(data, "closed_at", where),
        source_updated_at=time_field(data, "updated_at", where),
        comment_count=int(comments) if comments else 0,
        comments=[],
        payload={k: _clean(v) for k, v in row.items() if k},
        warnings=warnings,
    )
