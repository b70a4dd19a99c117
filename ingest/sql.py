"""The ingest app's hand-written SQL, in one place, every table named from the models (`_meta`; the issue
columns COPY writes are copy_rows.COLUMNS, which tests/ingest/test_copy_rows.py checks against the model):

- the bulk upsert of issue rows on (source, number): PostgreSQL streams rows with COPY (new issues straight into
  the table, re-ingested ones through a staging table and one INSERT … ON CONFLICT); other databases take the
  ORM's bulk_create. Both say which rows were new. COPY is PostgreSQL's: the tests of that path say they were
  skipped on SQLite, and the ORM path is tested on both;
- a run's progress, written on a connection of its own while the import's transaction is open;
- the newest summary of a report, read with every report an annotator opens (concord.rows says why by hand).
"""
from __future__ import annotations

import struct
from collections.abc import Iterator
from contextlib import contextmanager
from functools import cache

from django.db import connection
from django.utils import timezone

from concord import rows

from . import copy_rows
from .filtering import Verdict
from .models import IngestRun, Issue, Keyword, Source, Summary

STAGE = "concord_issue_stage"
COLUMN_LIST = ", ".join(copy_rows.COLUMNS)
ISSUES = Issue._meta.db_table
# A stored row is rewritten only when a stored field differs (jsonb compares by value, not by text).
_CHANGED = "({}) IS DISTINCT FROM ({})".format(
    ", ".join(f"{ISSUES}.{c}" for c in copy_rows.FIELDS), ", ".join(f"EXCLUDED.{c}" for c in copy_rows.FIELDS))
_NUMBER, _SOURCE = Issue._meta.get_field("number").column, Issue._meta.get_field("source").column
# One probe of the (source, number) index per number, as a lateral subquery that LIMIT keeps from being merged
# into a join, so that no plan but the probe is possible. The planner's statistics cannot know the rows this
# import's own transaction wrote: with a plain `number = ANY(…)` or a join it read every issue of the source
# for each batch, and an import slowed with every thousand issues it had already written.
_NUMBERS_AND_IDS = (f"SELECT n.number, i.id FROM unnest(%s::text[]) AS n(number) CROSS JOIN LATERAL "
                    f"(SELECT id FROM {ISSUES} WHERE {_SOURCE} = %s AND {_NUMBER} = n.number LIMIT 1) AS i")
_NEW_IDS = f"SELECT nextval(pg_get_serial_sequence('{ISSUES}', 'id')) FROM generate_series(1, %s)"


NEW, UPDATED, UNCHANGED = "new", "updated", "unchanged"


def upsert(source_id: int, verdicts: list[Verdict]) -> list[tuple[int, str]]:
    """Write the issues of these verdicts; (issue id, NEW, UPDATED or UNCHANGED) for each, in order. A stored
    issue is rewritten only when one of its stored fields differs: a re-ingest of unchanged issues says so.

    Runs inside the caller's transaction, so a failure leaves no row half-written.
    """
    if connection.vendor == "postgresql":
        now = copy_rows.stamp(timezone.now())
        rows = {v.number: v.copy_line or copy_rows.render(source_id, v.record, v.kept, now) for v in verdicts}
        return _upsert_postgres(source_id, rows)
    return _upsert_orm(source_id, verdicts)


def _unchanged(issue: Issue, stored: dict | None) -> bool:
    return stored is not None and all(getattr(issue, f) == stored[f] for f in copy_rows.FIELDS)


def _upsert_orm(source_id: int, verdicts: list[Verdict]) -> list[tuple[int, str]]:
    numbers = [v.number for v in verdicts]
    stored = {row["number"]: row for row in Issue.objects.filter(source_id=source_id, number__in=numbers)
              .values("id", "number", *copy_rows.FIELDS)}
    fields = [f for f in copy_rows.FIELDS if f not in ("kept", "payload")]
    objects = [
        Issue(source_id=source_id, number=v.number, kept=v.kept,
              **{f: getattr(v.record, f) for f in fields}, payload=copy_rows.stored_payload(v.record.payload))
        for v in verdicts
    ]
    same = {obj.number for obj in objects if _unchanged(obj, stored.get(obj.number))}
    Issue.objects.bulk_create(
        [obj for obj in objects if obj.number not in same], update_conflicts=True,
        unique_fields=["source", "number"], update_fields=copy_rows.FIELDS,
    )
    return [(stored[obj.number]["id"], UNCHANGED) if obj.number in same
            else (obj.pk, UPDATED if obj.number in stored else NEW) for obj in objects]


# Rows go to the server in blocks of about this many bytes: one write a row cost a system call and a wait
# for the socket each, which was most of what the process holding the connection did during an import.
COPY_BLOCK_BYTES = 1 << 20


def _copy(raw, table: str, rows, columns: str = COLUMN_LIST) -> None:
    """`rows`: copy_rows rows (bytes-like), or pieces of rows (see _with_id), in order."""
    with raw.copy(f"COPY {table} ({columns}) FROM STDIN (FORMAT binary)") as copy:
        block: list = [copy_rows.HEADER]
        size = 0
        for row in rows:
            block.append(row)
            size += len(row)
            if size >= COPY_BLOCK_BYTES:
                copy.write(b"".join(block))
                block, size = [], 0
        block.append(copy_rows.TRAILER)
        copy.write(b"".join(block))


def _upsert_postgres(source_id: int, rows: dict[str, bytes]) -> list[tuple[int, str]]:
    numbers = list(rows)
    with connection.cursor() as cursor:
        raw = cursor.cursor
        raw.execute(_NUMBERS_AND_IDS, [numbers, source_id])
        ids = dict(raw.fetchall())
        existing = set(ids)
        # New issues go straight in, with ids drawn beforehand so that none has to be looked up after;
        # only re-ingested ones need the staging table and ON CONFLICT.
        new = [number for number in numbers if number not in existing]
        if new:
            raw.execute(_NEW_IDS, [len(new)])
            ids.update(zip(new, (pk for (pk,) in raw.fetchall()), strict=True))
            _copy(raw, ISSUES, (piece for number in new for piece in _with_id(ids[number], rows[number])),
                  f"id, {COLUMN_LIST}")
        if existing:
            # The staging table lives as long as the connection; the caller's transaction bounds its rows.
            raw.execute(
                f"CREATE TEMP TABLE IF NOT EXISTS {STAGE} AS SELECT {COLUMN_LIST} FROM {ISSUES} WITH NO DATA"
            )
            _copy(raw, STAGE, (row for number, row in rows.items() if number in existing))
            updates = ", ".join(f"{c} = EXCLUDED.{c}" for c in [*copy_rows.FIELDS, "updated_at"])
            raw.execute(
                f"INSERT INTO {ISSUES} ({COLUMN_LIST}) SELECT {COLUMN_LIST} FROM {STAGE} "
                f"ON CONFLICT ({_SOURCE}, {_NUMBER}) DO UPDATE SET {updates} WHERE {_CHANGED} RETURNING {_NUMBER}"
            )
            changed = {number for (number,) in raw.fetchall()}
            raw.execute(f"TRUNCATE {STAGE}")
    return [(ids[number], NEW if number not in existing else UPDATED if number in changed else UNCHANGED)
            for number in numbers]


_WITH_ID = struct.Struct(">hiq")


def _with_id(pk: int, row) -> tuple:
    """A rendered row with the id as its first field: one field more in its count, then the id, then the rest.
    Two pieces, not one row: the row (a few kilobytes) is copied once, into the block sent to the server."""
    return _WITH_ID.pack(len(copy_rows.COLUMNS) + 1, 8, pk), memoryview(row)[2:]


def replace_matches(old_issue_ids: list[int], pairs: list[tuple[int, int]]) -> None:
    """Set the keywords each written issue matched: old matches of re-ingested issues go, new ones come."""
    through = Issue.matched_keywords.through
    if old_issue_ids:
        through.objects.filter(issue_id__in=old_issue_ids).delete()
    if not pairs:
        return
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor, cursor.cursor.copy(
            f"COPY {through._meta.db_table} ({through._meta.get_field('issue').column}, "
            f"{through._meta.get_field('keyword').column}) FROM STDIN"
        ) as copy:
            for pair in pairs:
                copy.write_row(pair)
    else:
        through.objects.bulk_create([through(issue_id=i, keyword_id=k) for i, k in pairs])


@contextmanager
def references_locked(source_id: int, keyword_ids: list[int]) -> Iterator[bool]:
    """Around the writing of one file's issues and their keyword matches in one transaction on PostgreSQL: where
    this role may, take once the locks that the foreign-key checks would take for every row (the source and the
    keywords, FOR KEY SHARE: none can go or change its id before the transaction ends) and turn those row-by-row
    checks off while the body runs. Gives whether it did.

    PostgreSQL checks a foreign key with a query per written row: for a file's issues and their matches that was
    a third of the database's time in an import. Every reference written meanwhile points at a row the transaction
    holds: the source or a keyword locked here, or an issue it wrote (a re-ingested one is locked by the upsert's
    ON CONFLICT, which locks every row it meets, rewritten or not). session_replication_role turns off every other
    trigger of the tables written too: tests/ingest/test_reference_locks.py keeps them free of any. A role that may
    not set it (not a superuser, nor granted SET on it) keeps the row-by-row checks. The setting is put back once
    the body is done; if the body fails, rolling back its transaction or savepoint puts it back."""
    with connection.cursor() as cursor:
        if connection.pg_version >= 150000:
            cursor.execute("SELECT has_parameter_privilege('session_replication_role', 'SET')")
        else:
            cursor.execute("SELECT current_setting('is_superuser') = 'on'")
        may = cursor.fetchone()[0]
        if may:
            cursor.execute(f"SELECT id FROM {Source._meta.db_table} WHERE id = %s FOR KEY SHARE", [source_id])
            found = len(cursor.fetchall())
            if keyword_ids:
                cursor.execute(f"SELECT id FROM {Keyword._meta.db_table} WHERE id = ANY(%s) FOR KEY SHARE",
                               [keyword_ids])
                found += len(cursor.fetchall())
            # One gone meanwhile: the row-by-row checks will say which.
            may = found == 1 + len(keyword_ids)
        if may:
            cursor.execute("SELECT current_setting('session_replication_role'), "
                           "set_config('session_replication_role', 'replica', true)")
            before = cursor.fetchone()[0]
    if not may:
        yield False
        return
    yield True
    with connection.cursor() as cursor:
        cursor.execute("SELECT set_config('session_replication_role', %s, true)", [before])


def publish_progress(on, run: IngestRun, values: dict[str, int]) -> None:
    """A run's counts and a heartbeat, written on the connection `on` (not the import's own)."""
    columns = ", ".join(f"{IngestRun._meta.get_field(name).column} = %s" for name in values)
    heartbeat = IngestRun._meta.get_field("heartbeat_at").column
    with on.cursor() as cursor:
        cursor.execute(f"UPDATE {IngestRun._meta.db_table} SET {columns}, {heartbeat} = now() WHERE id = %s",
                       [*values.values(), run.pk])


@cache
def _latest_summary() -> str:
    column = {name: f"s.{Summary._meta.get_field(name).column}" for name in ("issue", "status", "updated_at")}
    return (f"SELECT {rows.columns(Summary, 's')} FROM {Summary._meta.db_table} s WHERE {column['issue']} = %s "
            f"AND {column['status']} = %s ORDER BY {column['updated_at']} DESC, s.id DESC LIMIT 1")


def latest_summary(issue: Issue) -> Summary | None:
    """The report's newest summary that was made."""
    row = rows.fetch_one(_latest_summary(), [issue.pk, Summary.Status.OK.value])
    return rows.instance(Summary, row) if row else None
