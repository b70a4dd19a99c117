"""Bulk upsert of issue rows on (source, number). PostgreSQL streams rows with COPY (new issues straight
into the table, re-ingested ones through a staging table and one INSERT … ON CONFLICT); other databases
take the ORM's bulk_create. Both say which rows were new.
"""
from __future__ import annotations

from django.db import connection
from django.utils import timezone

from . import copy_rows
from .filtering import Verdict
from .models import Issue

STAGE = "concord_issue_stage"
COLUMN_LIST = ", ".join(copy_rows.COLUMNS)
# A stored row is rewritten only when a stored field differs (jsonb compares by value, not by text).
_CHANGED = "({}) IS DISTINCT FROM ({})".format(
    ", ".join(f"ingest_issue.{c}" for c in copy_rows.FIELDS), ", ".join(f"EXCLUDED.{c}" for c in copy_rows.FIELDS))
_NUMBERS_AND_IDS = "SELECT number, id FROM ingest_issue WHERE source_id = %s AND number = ANY(%s)"


NEW, UPDATED, UNCHANGED = "new", "updated", "unchanged"


def upsert(source_id: int, verdicts: list[Verdict]) -> list[tuple[int, str]]:
    """Write the issues of these verdicts; (issue id, NEW, UPDATED or UNCHANGED) for each, in order. A stored
    issue is rewritten only when one of its stored fields differs: a re-ingest of unchanged issues says so.

    Runs inside the caller's transaction, so a failure leaves no row half-written.
    """
    if connection.vendor == "postgresql":
        now = timezone.now()
        lines = {v.number: v.copy_line or copy_rows.render(source_id, v.record, v.kept, now) for v in verdicts}
        return _upsert_postgres(source_id, lines)
    return _upsert_orm(source_id, verdicts)


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
    same = {obj.number for obj in objects if obj.number in stored and all(
        getattr(obj, f) == stored[obj.number][f] for f in copy_rows.FIELDS)}
    Issue.objects.bulk_create(
        [obj for obj in objects if obj.number not in same], update_conflicts=True,
        unique_fields=["source", "number"], update_fields=copy_rows.FIELDS,
    )
    return [(stored[obj.number]["id"], UNCHANGED) if obj.number in same
            else (obj.pk, UPDATED if obj.number in stored else NEW) for obj in objects]


def _copy(raw, table: str, lines) -> None:
    with raw.copy(f"COPY {table} ({COLUMN_LIST}) FROM STDIN") as copy:
        for line in lines:
            copy.write(line)


def _upsert_postgres(source_id: int, lines: dict[str, str]) -> list[tuple[int, str]]:
    numbers = list(lines)
    with connection.cursor() as cursor:
        raw = cursor.cursor
        raw.execute(_NUMBERS_AND_IDS, [source_id, numbers])
        existing = {number for number, _id in raw.fetchall()}
        # New issues go straight in; only re-ingested ones need the staging table and ON CONFLICT.
        _copy(raw, "ingest_issue", (line for number, line in lines.items() if number not in existing))
        if existing:
            # The staging table lives as long as the connection; the caller's transaction bounds its rows.
            raw.execute(
                f"CREATE TEMP TABLE IF NOT EXISTS {STAGE} AS SELECT {COLUMN_LIST} FROM ingest_issue WITH NO DATA"
            )
            _copy(raw, STAGE, (line for number, line in lines.items() if number in existing))
            updates = ", ".join(f"{c} = EXCLUDED.{c}" for c in [*copy_rows.FIELDS, "updated_at"])
            raw.execute(
                f"INSERT INTO ingest_issue ({COLUMN_LIST}) SELECT {COLUMN_LIST} FROM {STAGE} "
                f"ON CONFLICT (source_id, number) DO UPDATE SET {updates} WHERE {_CHANGED} RETURNING number"
            )
            changed = {number for (number,) in raw.fetchall()}
            raw.execute(f"TRUNCATE {STAGE}")
        raw.execute(_NUMBERS_AND_IDS, [source_id, numbers])
        ids = dict(raw.fetchall())
    return [(ids[number], NEW if number not in existing else UPDATED if number in changed else UNCHANGED)
            for number in numbers]


def replace_matches(old_issue_ids: list[int], pairs: list[tuple[int, int]]) -> None:
    """Set the keywords each written issue matched: old matches of re-ingested issues go, new ones come."""
    through = Issue.matched_keywords.through
    if old_issue_ids:
        through.objects.filter(issue_id__in=old_issue_ids).delete()
    if not pairs:
        return
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor, cursor.cursor.copy(
            f"COPY {through._meta.db_table} (issue_id, keyword_id) FROM STDIN"
        ) as copy:
            for pair in pairs:
                copy.write_row(pair)
    else:
        through.objects.bulk_create([through(issue_id=i, keyword_id=k) for i, k in pairs])
