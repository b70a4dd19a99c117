"""The issue columns COPY writes (ingest.copy_rows, pure, so that worker processes can render rows) are the
model's: a renamed or added field fails here, not in a PostgreSQL COPY at import time. Every rendered row reads
back, as PostgreSQL reads binary COPY, as the record it came from."""
from __future__ import annotations

import datetime as dt
import json
import struct

import pytest
from django.db import connection, transaction
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ingest import copy_rows, sql
from ingest.filtering import Verdict
from ingest.importers import IssueRecord
from ingest.models import Issue
from tests.factories import make_source


def test_copy_columns_are_the_issue_models_columns():
    stored = {field.column for field in Issue._meta.concrete_fields}
    assert set(copy_rows.COLUMNS) <= stored
    # Every stored column but the id is written: a field added to the model must be added to the COPY too.
    assert stored - set(copy_rows.COLUMNS) == {"id"}
    assert {Issue._meta.get_field(name).column for name in copy_rows.FIELDS} == set(copy_rows.FIELDS)


_EPOCH = dt.datetime(2000, 1, 1, tzinfo=dt.UTC)


def _fields(row: bytes) -> dict:
    """A rendered row read as PostgreSQL reads binary COPY: a count of fields, then each as length and bytes."""
    (count,), at, fields = struct.unpack_from(">h", row), 2, []
    for _ in range(count):
        (size,), at = struct.unpack_from(">i", row, at), at + 4
        fields.append(None if size == -1 else row[at:at + size])
        at += max(size, 0)
    assert at == len(row)
    return dict(zip(copy_rows.COLUMNS, fields, strict=True))


def _time(field: bytes | None):
    return None if field is None else _EPOCH + dt.timedelta(microseconds=struct.unpack(">q", field)[0])


def _json(field: bytes):
    assert field[:1] == b"\x01"  # jsonb's binary form: a version, then the text
    return json.loads(field[1:])


_PIECES = ["\\", "\n", "\r", "\t", "\\n", "a", "é", "大", "\u2028", "\x85", " "]
# A record's text holds no NUL (the importer replaced it) and no lone surrogate (refused).
_TEXT = (st.text(alphabet=st.characters(exclude_categories=["Cs"], exclude_characters="\x00"))
         | st.lists(st.sampled_from(_PIECES)).map("".join))
_OFFSET = dt.timedelta(hours=23, minutes=59)
# Without an offset, or with any PostgreSQL accepts; within the years the importers accept (ingest.importers.text:
# 1970 on, and a day short of 9999's end, so that no offset takes the time's UTC out of Python's years).
_TIMES = st.none() | st.datetimes(min_value=dt.datetime(1970, 1, 2), max_value=dt.datetime(9999, 12, 30),
                                  timezones=st.none() | st.builds(
                                      dt.timezone, st.timedeltas(min_value=-_OFFSET, max_value=_OFFSET)))


@settings(max_examples=300, deadline=None)
@given(text=_TEXT, times=st.tuples(_TIMES, _TIMES, _TIMES), count=st.integers(0, 2**31 - 1), kept=st.booleans(),
       big=st.integers(-(2**70), 2**70))
def test_a_row_reads_back_as_the_record_it_was(text, times, count, kept, big):
    created, closed, updated = times
    record = IssueRecord(
        number=text[:32] or "1", title=text, body=text * 2, url="https://example.org/" + text[:10], author=text[:5],
        state="open", platform_labels=[text, "bug"], created_at=created, closed_at=closed, source_updated_at=updated,
        comment_count=count, comments=[{"author": "m", "body": text, "created_at": ""}],
        payload={"number": 1, "title": text, "body": text, "big": big, "nested": {"text": text}})
    now = dt.datetime(2026, 12, 5, 1, 2, 3, 456789, tzinfo=dt.UTC)
    row = _fields(copy_rows.render(7, record, kept, copy_rows.stamp(now)))
    assert struct.unpack(">q", row["source_id"])[0] == 7
    for field in ("number", "url", "title", "body", "author", "state"):
        assert row[field].decode() == getattr(record, field)
    # A time without an offset is UTC, as the database session reads one given as text.
    for field, value in (("created_at", created), ("closed_at", closed), ("source_updated_at", updated)):
        assert _time(row[field]) == (value if value is None or value.tzinfo else value.replace(tzinfo=dt.UTC))
    assert _time(row["imported_at"]) == _time(row["updated_at"]) == now
    assert struct.unpack(">i", row["comment_count"])[0] == count
    assert row["kept"] == (b"\x01" if kept else b"\x00")
    assert _json(row["platform_labels"]) == record.platform_labels and _json(row["comments"]) == record.comments
    assert _json(row["payload"]) == copy_rows.stored_payload(record.payload)


@pytest.mark.django_db
@pytest.mark.skipif(connection.vendor != "postgresql", reason="binary COPY is PostgreSQL's")
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(text=_TEXT, created=_TIMES)
def test_postgresql_stores_what_a_row_says(text, created):
    with transaction.atomic():  # each example on its own: one's failure leaves the next a usable transaction
        _store_and_compare(text, created)
        transaction.set_rollback(True)


def _store_and_compare(text, created):
    source = make_source("o/r")
    record = IssueRecord(
        number="7", title=text, body=text, url="", author="", state="open", platform_labels=[text],
        created_at=created, closed_at=None, source_updated_at=None, comment_count=3, comments=[],
        payload={"number": 7, "text": text, "big": 2**70})
    assert [state for _pk, state in sql.upsert(source.pk, [Verdict(record, "", kept=True, number="7")])] == [sql.NEW]
    issue = Issue.objects.get(source=source, number="7")
    assert (issue.title, issue.body, issue.platform_labels, issue.comment_count, issue.kept) == (
        text, text, [text], 3, True)
    assert issue.created_at == (created if created is None or created.tzinfo else created.replace(tzinfo=dt.UTC))
    assert issue.payload == {"number": 7, "text": text, "big": 2**70}

