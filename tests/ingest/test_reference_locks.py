"""A file's import on PostgreSQL holds every row its new rows point at until it commits, as the foreign keys
would: by PostgreSQL's row-by-row checks for a role that may not turn them off, or by locks taken once per
import (the source, the keywords) and per batch (re-ingested issues given matches) for one that may."""
from __future__ import annotations

import contextlib
import json

import psycopg
import pytest
from django.db import DEFAULT_DB_ALIAS, connection, connections, transaction

from ingest import sql
from ingest.models import Issue, Keyword, Source
from ingest.services.files import import_file
from ingest.services.keywords import SHIPPED_LISTS, load_keyword_list

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(connection.vendor != "postgresql", reason="the single-transaction import is PostgreSQL's"),
]

ISSUES = 1500  # two batches: the locks are looked at after the first


def _setting() -> str:
    with connection.cursor() as cursor:
        cursor.execute("SHOW session_replication_role")
        return cursor.fetchone()[0]


def _file(tmp_path, name: str = "a.jsonl") -> str:
    path = tmp_path / name
    path.write_text("\n".join(json.dumps({"number": n, "title": f"Issue {n} with llama", "body": "uses vllm"})
                              for n in range(1, ISSUES + 1)))
    return str(path)


def _sources(*names: str) -> list[Source]:
    keywords = load_keyword_list(SHIPPED_LISTS / "pytorch.json")
    return [Source.objects.create(full_name=name, kind=Source.Kind.FRAMEWORK, keyword_list=keywords) for name in names]


def _row_checks(monkeypatch) -> None:
    # What a role that may not set session_replication_role gets: PostgreSQL's own checks, row by row.
    monkeypatch.setattr(sql, "references_locked", lambda *args: contextlib.nullcontext(False))


def test_no_table_the_import_writes_has_a_trigger_or_rule_of_its_own():
    # Turning the foreign-key checks off turns off every trigger of these tables: there must be none to lose.
    tables = [Issue._meta.db_table, Issue.matched_keywords.through._meta.db_table]
    with connection.cursor() as cursor:
        cursor.execute("SELECT tgname FROM pg_trigger WHERE tgrelid = ANY(%s::regclass[]) AND NOT tgisinternal",
                       [tables])
        assert cursor.fetchall() == []
        cursor.execute("SELECT rulename FROM pg_rules WHERE tablename = ANY(%s)", [tables])
        assert cursor.fetchall() == []


def test_checks_are_turned_off_only_where_the_role_may_and_only_while_writing():
    source, = _sources("o/r")
    keyword_ids = list(Keyword.objects.filter(keyword_list=source.keyword_list).values_list("id", flat=True))
    with transaction.atomic():
        with sql.references_locked(source.pk, keyword_ids) as locked:
            assert locked and _setting() == "replica"
        assert _setting() == "origin"
    with pytest.raises(RuntimeError), transaction.atomic():
        with sql.references_locked(source.pk, keyword_ids):
            raise RuntimeError("a bad line")
    assert _setting() == "origin"  # the rollback puts it back
    with transaction.atomic():
        # A keyword gone since the import read its list: PostgreSQL's own checks will name it.
        with sql.references_locked(source.pk, [*keyword_ids, max(keyword_ids) + 1000]) as locked:
            assert not locked and _setting() == "origin"
    with transaction.atomic():
        with connection.cursor() as cursor:
            cursor.execute("CREATE ROLE concord_plain_role NOLOGIN")  # gone with the rollback below
            cursor.execute("SET LOCAL ROLE concord_plain_role")
        with sql.references_locked(source.pk, keyword_ids) as locked:
            assert not locked and _setting() == "origin"
        transaction.set_rollback(True)


def _locked(other, table: str, pk: int) -> bool:
    with other.cursor() as cursor:
        cursor.execute("SAVEPOINT probe")
        try:
            cursor.execute(f"SELECT id FROM {table} WHERE id = %s FOR UPDATE NOWAIT", [pk])
        except Exception as exc:  # django wraps psycopg's LockNotAvailable in its OperationalError
            cursor.execute("ROLLBACK TO SAVEPOINT probe")
            if isinstance(exc.__cause__, psycopg.errors.LockNotAvailable):
                return True
            raise
        assert cursor.fetchall() == [(pk,)]  # a row that is not there would say nothing
        cursor.execute("ROLLBACK TO SAVEPOINT probe")
        return False


@pytest.mark.parametrize("row_checks", [False, True], ids=["locks", "row-by-row"])
def test_an_import_holds_the_rows_its_rows_point_at_until_it_commits(tmp_path, monkeypatch, row_checks):
    if row_checks:
        _row_checks(monkeypatch)
    source, = _sources("o/r")
    keyword = Keyword.objects.get(keyword_list=source.keyword_list, term="llama")
    path = _file(tmp_path)
    other = connections.create_connection(DEFAULT_DB_ALIAS)
    seen = []

    def look(rows):
        def at_first_batch(run):
            if run.fetched == 1000:  # the first batch is written, the second not yet
                with _transaction(other):
                    seen.append({name: _locked(other, table, pk) for name, (table, pk) in rows().items()})
        return at_first_batch

    def source_and_keyword():
        return {"source": (Source._meta.db_table, source.pk), "keyword": (Keyword._meta.db_table, keyword.pk)}

    try:
        assert import_file(path, source, on_progress=look(source_and_keyword)).created == ISSUES
        first = Issue.objects.get(source=source, number="1")
        # Again, unchanged: the stored issues are not rewritten, yet their matches are, and point at them.
        run = import_file(path, source, on_progress=look(
            lambda: {"keyword": source_and_keyword()["keyword"], "issue": (Issue._meta.db_table, first.pk)}))
        assert run.unchanged == ISSUES
        assert seen == [{"source": True, "keyword": True}, {"keyword": True, "issue": True}]
        with _transaction(other):
            assert not any(_locked(other, table, pk) for table, pk in [
                *source_and_keyword().values(), (Issue._meta.db_table, first.pk)])
    finally:
        other.close()


class _transaction:
    """A transaction on a connection of its own, rolled back."""

    def __init__(self, other):
        self.other = other

    def __enter__(self):
        self.other.ensure_connection()
        self.other.connection.execute("BEGIN")

    def __exit__(self, *exc):
        self.other.connection.execute("ROLLBACK")


def test_both_ways_store_the_same_issues_and_matches(tmp_path, monkeypatch):
    locked, checked = _sources("o/locked", "o/checked")
    path = _file(tmp_path)
    import_file(path, locked)
    _row_checks(monkeypatch)
    import_file(path, checked)

    def stored(source):
        return (sorted(source.issues.values_list("number", "title", "body", "kept")),
                sorted(source.issues.values_list("number", "matched_keywords__term")))

    assert stored(locked) == stored(checked) and len(stored(locked)[1]) >= ISSUES
