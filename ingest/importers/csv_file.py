"""CSV with a header row. Required columns: number, title. Optional: body, author, state, labels
(separated by ";" or "|"), created_at, closed_at, updated_at, url, comments (a count)."""
from __future__ import annotations

import csv
import re
from collections.abc import Iterator

from concord.textcheck import INT32_MAX

from . import ImportFileError, IssueRecord
from .limits import checked
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
    with open_text(path) as f:
        # strict: a quote that is never closed is an error at the end of the file, not one issue that
        # swallows every line after it.
        reader = csv.DictReader(f, strict=True)
        try:
            header = reader.fieldnames or []
        except (csv.Error, UnicodeDecodeError) as exc:
            raise ImportFileError(f"{name}:1: cannot read the header ({_reason(exc)})") from exc
        columns = {h: ALIASES[h.strip().lower()] for h in header if h and h.strip().lower() in ALIASES}
        missing = {"number", "title"} - set(columns.values())
        if missing:
            raise ImportFileError(f"{name}:1: missing column(s) {', '.join(sorted(missing))} "
                                  f"(expected a header naming at least number and title)")
        start = reader.line_num + 1
        try:
            for row in reader:
                where = f"{name}:{start}"
                start = reader.line_num + 1
                data = {canonical: _clean(row.get(column)) for column, canonical in columns.items()}
                yield _record(data, row, where)
        except csv.Error as exc:
            if "unexpected end of data" in str(exc):
                raise ImportFileError(f"{name}:{start}: a quoted field opened in this row is never closed "
                                      "(expected a closing \")") from exc
            raise ImportFileError(f"{name}:{start}: {exc}") from exc
        except UnicodeDecodeError as exc:
            raise ImportFileError(f"{name}:{reader.line_num + 1}: not UTF-8 text ({exc.reason})") from exc


def _reason(exc: Exception) -> str:
    return f"not UTF-8 text: {exc.reason}" if isinstance(exc, UnicodeDecodeError) else str(exc)


def _record(data: dict, row: dict, where: str) -> IssueRecord:
    if not data.get("number", "").strip():
        raise ImportFileError(f"{where}: number: empty (expected the issue's number, such as 1234 or I8SLI3)")
    if not data.get("title", "").strip():
        raise ImportFileError(f"{where}: title: empty (expected text)")
    comments = data.get("comments", "").strip()
    if comments and not (comments.isascii() and comments.isdigit() and len(comments) <= 10):
        shown = comments if len(comments) <= 20 else comments[:17] + "..."
        raise ImportFileError(f"{where}: comments: {shown!r} is not a count (expected a whole number, 0 to "
                              f"{INT32_MAX:,})")
    labels = data.get("labels", "").strip()
    url, warnings = url_field(data.get("url", ""), "url", where)
    return checked(IssueRecord(
        number=data["number"].strip().lstrip("#"),
        title=data["title"],
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
    ), where)
