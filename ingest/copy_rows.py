"""Pure: an issue row in PostgreSQL's COPY text format, so that worker processes can render rows and the
process holding the database connection only has to stream them."""
from __future__ import annotations

import datetime as dt
import json

import orjson

from .importers import IssueRecord

# Column order of every COPY into ingest_issue (and its staging table).
FIELDS = [
    "url", "title", "body", "author", "state", "platform_labels", "created_at", "closed_at",
    "source_updated_at", "comment_count", "comments", "payload", "kept",
]
COLUMNS = ["source_id", "number", *FIELDS, "imported_at", "updated_at"]
NULL = "\\N"
PAYLOAD_COLUMNS = ("title", "body")
# Backslash first, so the escapes added after it are not escaped again. (str.replace beats
# str.translate by far on long texts.)
_ESCAPES = (("\\", "\\\\"), ("\n", "\\n"), ("\r", "\\r"), ("\t", "\\t"))


def escape(value: str) -> str:
    for char, escaped in _ESCAPES:
        if char in value:
            value = value.replace(char, escaped)
    return value


def _json(value) -> str:
    # orjson writes what json.dumps would, without the spaces and \u escapes jsonb does not keep anyway. JSON
    # text holds no raw line break or tab (it escapes them), so of COPY's escapes only the backslash is needed.
    try:
        text = orjson.dumps(value).decode()
    except TypeError:  # an integer past 64 bits, which json writes whole
        text = json.dumps(value)
    return text.replace("\\", "\\\\")


def _time(value: dt.datetime | None) -> str:
    return NULL if value is None else value.isoformat()


def stored_payload(payload: dict) -> dict:
    """The original object less the fields stored in their own columns (Issue.original_payload puts them
    back). Bodies are most of an issue's bytes; storing them once makes ingest about a quarter faster."""
    return {k: v for k, v in payload.items() if k not in PAYLOAD_COLUMNS}


def render(source_id: int, record: IssueRecord, kept: bool, now: dt.datetime) -> str:
    """One line of COPY … FROM STDIN (text format) for this record."""
    stamp = now.isoformat()
    return "\t".join((
        str(source_id), escape(record.number), escape(record.url), escape(record.title), escape(record.body),
        escape(record.author), escape(record.state), _json(record.platform_labels),
        _time(record.created_at), _time(record.closed_at), _time(record.source_updated_at),
        str(record.comment_count), _json(record.comments),
        _json(stored_payload(record.payload)),
        "t" if kept else "f", stamp, stamp,
    )) + "\n"
