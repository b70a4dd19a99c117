"""Pure: an issue row in PostgreSQL's COPY text format, so that worker processes can render rows and the
process holding the database connection only has to stream them."""
from __future__ import annotations

import datetime as dt
import json

from .importers import IssueRecord

# Column order of every COPY into ingest_issue (and its staging table).
FIELDS = [
    "url", "title", "body", "author", "state", "platform_labels", "created_at", "closed_at",
    "source_updated_at", "comment_count", "comments", "payload", "kept",
]
COLUMNS = ["source_id", "number", *FIELDS, "imported_at", "updated_at"]
# Backslash first, so the escapes added after it are not escaped again. (str.replace beats
# str.translate by far on long texts.)
_ESCAPES = (("\\", "\\\\"), ("\n", "\\n"), ("\r", "\\r"), ("\t", "\\t"))


def _text(value) -> str:
    if value is None:
        return "\\N"
    if isinstance(value, bool):
        return "t" if value else "f"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, dt.datetime):
        return value.isoformat()
    if isinstance(value, dict | list):
        value = json.dumps(value)
    for char, escaped in _ESCAPES:
        if char in value:
            value = value.replace(char, escaped)
    return value


def render(source_id: int, record: IssueRecord, kept: bool, now: dt.datetime) -> str:
    """One line of COPY … FROM STDIN (text format) for this record."""
    values = [source_id, record.number]
    values.extend(kept if field == "kept" else getattr(record, field) for field in FIELDS)
    values.extend((now, now))
    return "\t".join(_text(v) for v in values) + "\n"
