"""The annotation app's hand-written SQL, in one place: the labeling round trip's reads and writes, and the bulk
writers. Every table and column is named from the models (`_meta`), so a renamed field or table changes the SQL
with it. Why SQL at all: the ORM spends 0.5–3 ms of CPU building each query on a path that runs a dozen per round
trip (concord.rows says more); `tests/test_rows.py` compares every read and write here with its ORM equivalent,
on SQLite and on PostgreSQL. COPY is PostgreSQL's: elsewhere the bulk writers insert row by row.
"""
from __future__ import annotations

from collections.abc import Iterable, Sequence
from functools import cache

from django.db import connection
from django.db.models import Model

from concord import history, rows
from ingest.models import Issue, Source
from taxonomy.models import Category, Codebook

from .models import Assignment, Label, Membership, Queue, Round, Study


def _table(model: type[Model]) -> str:
    return connection.ops.quote_name(model._meta.db_table)


def _column(model: type[Model], name: str) -> str:
    return connection.ops.quote_name(model._meta.get_field(name).column)


def _on(alias: str, model: type[Model], name: str) -> str:
    return f"{alias}.{_column(model, name)}"


@cache
def study_with_role() -> str:
    """A study with its codebook, its current round and the user's role (params: user, study). Every page and
    API call of a study starts here."""
    role = (f"(SELECT {_on('m', Membership, 'role')} FROM {_table(Membership)} m "
            f"WHERE {_on('m', Membership, 'study')} = s.id AND {_on('m', Membership, 'user')} = %s)")
    return (f"SELECT {rows.columns(Study, 's')}, {rows.columns(Codebook, 't')}, {rows.columns(Round, 'r')}, {role} "
            f"FROM {_table(Study)} s INNER JOIN {_table(Codebook)} t ON t.id = {_on('s', Study, 'codebook')} "
            f"LEFT OUTER JOIN {_table(Round)} r ON r.id = {_on('s', Study, 'current_round')} WHERE s.id = %s")


@cache
def categories_with_children(count: int) -> str:
    """`count` categories of a codebook, each with how many children it has (params: the ids, the codebook)."""
    children = f"(SELECT COUNT(*) FROM {_table(Category)} k WHERE {_on('k', Category, 'parent')} = c.id)"
    return (f"SELECT {rows.columns(Category, 'c')}, {children} FROM {_table(Category)} c "
            f"WHERE c.id IN ({', '.join(['%s'] * count)}) AND {_on('c', Category, 'codebook')} = %s")


def _mine() -> str:
    """The user's assignment of one report in the round, not done yet: params round, annotator, issue, False."""
    queue = (f"(SELECT q.id FROM {_table(Queue)} q WHERE {_on('q', Queue, 'round')} = %s "
             f"AND {_on('q', Queue, 'annotator')} = %s)")
    return (f"{_column(Assignment, 'queue')} = {queue} AND {_column(Assignment, 'issue')} = %s "
            f"AND {_column(Assignment, 'done')} = %s")


@cache
def first_done() -> str:
    """Mark the report done the first time it is labeled (params: True, round, annotator, issue, False, "")."""
    return (f"UPDATE {_table(Assignment)} SET {_column(Assignment, 'done')} = %s WHERE {_mine()} "
            f"AND {_column(Assignment, 'requeued_because')} = %s")


@cache
def done_again() -> str:
    """Mark a report a codebook change sent back done again (params: True, "", round, annotator, issue, False,
    "")."""
    because = _column(Assignment, "requeued_because")
    return (f"UPDATE {_table(Assignment)} SET {_column(Assignment, 'done')} = %s, {because} = %s WHERE {_mine()} "
            f"AND {because} <> %s")


@cache
def count_done() -> str:
    """One more report done in the user's queue (params: round, annotator)."""
    done = _column(Queue, "done")
    return (f"UPDATE {_table(Queue)} SET {done} = {done} + 1 WHERE {_column(Queue, 'round')} = %s "
            f"AND {_column(Queue, 'annotator')} = %s")


@cache
def queue_open() -> str:
    """Whether the user's queue in the round is still to finish (params: round, annotator)."""
    return (f"SELECT 1 FROM {_table(Queue)} WHERE {_column(Queue, 'round')} = %s "
            f"AND {_column(Queue, 'annotator')} = %s AND {_column(Queue, 'stopped_at')} IS NULL "
            f"AND {_column(Queue, 'done')} < {_column(Queue, 'total')}")


def _sent_back(columns: str) -> str:
    """Reports a codebook change sent back and not chosen again (params: round, "", False)."""
    return (f"SELECT {columns} FROM {_table(Assignment)} a JOIN {_table(Queue)} q "
            f"ON q.id = {_on('a', Assignment, 'queue')} WHERE {_on('q', Queue, 'round')} = %s "
            f"AND {_on('a', Assignment, 'requeued_because')} <> %s AND {_on('a', Assignment, 'done')} = %s")


@cache
def progress() -> str:
    """One row: the user's done and total, the round's done and total, and the reports sent back (params:
    annotator, annotator, round, "", False, round)."""
    annotator, done, total, stopped = (_column(Queue, name) for name in ("annotator", "done", "total", "stopped_at"))
    # A queue whose labeler stopped (a lead who stopped labeling to see everything) adds to the round only what
    # it holds: the reports it will never label are not the round's to wait for.
    return (f"SELECT COALESCE(SUM(CASE WHEN {annotator} = %s THEN {done} END), 0), "
            f"COALESCE(SUM(CASE WHEN {annotator} = %s THEN {total} END), 0), COALESCE(SUM({done}), 0), "
            f"COALESCE(SUM(CASE WHEN {stopped} IS NULL THEN {total} ELSE {done} END), 0), "
            f"({_sent_back('COUNT(*)')}) "
            f"FROM {_table(Queue)} WHERE {_column(Queue, 'round')} = %s")


@cache
def sent_back_per_annotator() -> str:
    """Per annotator, the reports sent back (params: round, "", False)."""
    annotator = _on("q", Queue, "annotator")
    return _sent_back(f"{annotator}, COUNT(*)") + f" GROUP BY {annotator}"


@cache
def next_assignment() -> str:
    """The first report of the user's queue not labeled yet, skipped ones last (params: round, annotator, False).
    The queue's id as a scalar subquery, not a join: then the planner walks the (queue, done, skipped, position)
    index in order and stops at the first row, instead of sorting the whole remaining queue (8 ms at 40,000
    reports, 0.1 ms so)."""
    queue = (f"(SELECT q.id FROM {_table(Queue)} q WHERE {_on('q', Queue, 'round')} = %s "
             f"AND {_on('q', Queue, 'annotator')} = %s)")
    return (f"SELECT {rows.columns(Assignment, 'a')}, {rows.columns(Issue, 'i')}, {rows.columns(Source, 'src')} "
            f"FROM {_table(Assignment)} a INNER JOIN {_table(Issue)} i ON i.id = {_on('a', Assignment, 'issue')} "
            f"INNER JOIN {_table(Source)} src ON src.id = {_on('i', Issue, 'source')} "
            f"WHERE {_on('a', Assignment, 'queue')} = {queue} AND {_on('a', Assignment, 'done')} = %s "
            f"ORDER BY {_on('a', Assignment, 'skipped')}, {_on('a', Assignment, 'position')} LIMIT 1")


@cache
def withdraw_unlabeled(count: int) -> str:
    """Delete a queue's assignments of `count` reports that are not done and that the queue's person has not
    labeled in its round, returning their report ids (params: queue, False, the ids, round, annotator). One
    statement, so that a report labeled at this moment either was done first (the save locks its row; the delete
    waits, sees it done and leaves it) or is gone before the save (which then refuses). SQLite takes an alias in
    a DELETE only after AS, and a RETURNING column only unqualified."""
    marks = ", ".join(["%s"] * count)
    return rows.named(
        f"DELETE FROM {_table(Assignment)} AS a WHERE [[a.queue]] = %s AND [[a.done]] = %s "
        f"AND [[a.issue]] IN ({marks}) AND NOT EXISTS (SELECT 1 FROM [[l]] WHERE [[l.round]] = %s "
        f"AND [[l.annotator]] = %s AND [[l.issue]] = [[a.issue]]) RETURNING {_column(Assignment, 'issue')}",
        a=Assignment, l=Label)


def insert_rows(model: type[Model], columns: Sequence[str], values: Iterable[Sequence]) -> None:
    """Many rows at once, `columns` being field names: COPY on PostgreSQL, executemany elsewhere. Django's
    bulk_create spends most of its time preparing each value, which at 270,000 labels (and as many history rows,
    concord.history.record_rows_created) is most of a minute."""
    names = ", ".join(_column(model, name) for name in columns)
    with connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            with cursor.cursor.copy(f"COPY {_table(model)} ({names}) FROM STDIN") as copy:
                for row in values:
                    copy.write_row(row)
            return
        marks = ", ".join(["%s"] * len(columns))
        cursor.executemany(f"INSERT INTO {_table(model)} ({names}) VALUES ({marks})", list(values))


def analyze(model: type[Model]) -> None:
    """Fresh planner statistics for a table just filled (PostgreSQL's; nothing elsewhere)."""
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute(f"ANALYZE {_table(model)}")


def record_history_of_new_rows(model: type[Model], scope: str, scope_id: int, after: int, reason: str) -> None:
    """The history rows of rows written in bulk (which send no signals): those of `model` whose `scope` field is
    `scope_id` and whose id is past `after`."""
    history.record_rows_created(model, f"{_column(model, scope)} = %s AND {_column(model, 'id')} > %s",
                                [scope_id, after], reason=reason)
