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
NULL = b"\\N"
PAYLOAD_COLUMNS = ("title", "body")
# Backslash first, so the escapes added after it are not escaped again. On the encoded text: bytes.replace beats
# str.replace on text that is not ASCII (held two or four bytes a character), and str.translate by far on any.
_ESCAPES = ((b"\\", b"\\\\"), (b"\n", b"\\n"), (b"\r", b"\\r"), (b"\t", b"\\t"))


def escape(value: str) -> bytes:
    """The text encoded as UTF-8 for a COPY text field."""
    # Short fields (a number, a state, a login) seldom hold anything to escape: one look at the whole instead of
    # four (line breaks and tabs are not printable).
    if value.isprintable() and "\\" not in value:
        return value.encode()
    encoded = value.encode()
    for char, escaped in _ESCAPES:
        if char in encoded:
            encoded = encoded.replace(char, escaped)
    return encoded


def _json(value) -> bytes:
    # orjson writes what json.dumps would, without the spaces and \u escapes jsonb does not keep anyway. JSON
    # text holds no raw line break or tab (it escapes them), so of COPY's escapes only the backslash is needed.
    try:
        text = orjson.dumps(value)
    except TypeError:  # an integer past 64 bits, which json writes whole
        text = json.dumps(value).encode()
    return text.replace(b"\\", b"\\\\")


def _time(value: dt.datetime | None) -> bytes:
    return NULL if value is None else value.isoformat().encode()


def stored_payload(payload: dict) -> dict:
    """The original object less the fields stored in their own columns (Issue.original_payload puts them
    back). Bodies are most of an issue's bytes; storing them once makes ingest about a quarter faster."""
    return {k: v for k, v in payload.items() if k not in PAYLOAD_COLUMNS}


def stamp(now: dt.datetime) -> bytes:
    """`now` as render wants it: made once for many rows."""
    return now.isoformat().encode()


def render(source_id: int, record: IssueRecord, kept: bool, now: bytes) -> bytes:
    """One line of COPY … FROM STDIN (text format) for this record; `now` from stamp()."""
    return b"\t".join((
        b"%d" % source_id, escape(record.number), escape(record.url), escape(record.title), escape(record.body),
        escape(record.author), escape(record.state), _json(record.platform_labels),
        _time(record.created_at), _time(record.closed_at), _time(record.source_updated_at),
        b"%d" % record.comment_count, _json(record.comments),
        _json(stored_payload(record.payload)),
        b"t" if kept else b"f", now, now,
    )) + b"\n"
