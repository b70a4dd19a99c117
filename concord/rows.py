"""Concord's own hand-written SQL, in one place: model instances from SQL rows for the reads on the labeling
round trip's path (the signed-in user's row among them), single-row inserts, history rows copied from stored
rows, and table and column names taken from the models for the other apps' SQL modules.

Building a query through the ORM costs 0.5–3 ms of CPU each time (lookups resolved, joins set up, SQL compiled
on every call), ten times what PostgreSQL spends answering it, and a round trip (next report, save its label)
makes a dozen. Those few reads are written once as SQL; their column lists come from the models, and their rows
become instances through the public `Model.from_db` after the database's own converters (SQLite's booleans and
dates, JSON), so what the callers get is exactly what the ORM would have given them. Everything else uses the
ORM; tests compare each of these reads with its ORM equivalent.
"""
from __future__ import annotations

import re
from collections.abc import Sequence
from functools import cache

from django.contrib.auth import get_user_model
from django.db import DEFAULT_DB_ALIAS, connection
from django.db.models import Model


@cache
def _layout(model: type[Model]) -> tuple[tuple[str, ...], tuple]:
    """The model's attribute names in column order, and the converters of the columns that have any."""
    fields = model._meta.concrete_fields
    converters = []
    for index, field in enumerate(fields):
        column = field.get_col(model._meta.db_table)
        found = tuple(connection.ops.get_db_converters(column)) + tuple(field.get_db_converters(connection))
        if found:
            converters.append((index, column, found))
    return tuple(field.attname for field in fields), tuple(converters)


def columns(model: type[Model], alias: str) -> str:
    """`alias."col", …` for every stored field of the model, in the order `instance` reads them back."""
    quote = connection.ops.quote_name
    return ", ".join(f"{alias}.{quote(field.column)}" for field in model._meta.concrete_fields)


def width(model: type[Model]) -> int:
    return len(model._meta.concrete_fields)


def instance(model: type[Model], row: Sequence, start: int = 0):
    """The model instance whose columns start at `row[start]`; None when its primary key is NULL (nothing
    matched a LEFT JOIN)."""
    names, converters = _layout(model)
    values = list(row[start:start + len(names)])
    if values[0] is None:  # the primary key comes first
        return None
    for index, column, found in converters:
        for convert in found:
            values[index] = convert(values[index], column, connection)
    return model.from_db(DEFAULT_DB_ALIAS, names, values)


def fetch_one(sql: str, params: Sequence) -> tuple | None:
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        return cursor.fetchone()


def fetch_all(sql: str, params: Sequence) -> list[tuple]:
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        return cursor.fetchall()


def execute(sql: str, params: Sequence) -> int:
    """Rows changed by an UPDATE."""
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        return cursor.rowcount


@cache
def _insert_sql(model: type[Model]) -> tuple[str, tuple]:
    quote = connection.ops.quote_name
    fields = tuple(field for field in model._meta.concrete_fields if not field.primary_key)
    names = ", ".join(quote(field.column) for field in fields)
    marks = ", ".join(["%s"] * len(fields))
    return (f"INSERT INTO {quote(model._meta.db_table)} ({names}) VALUES ({marks}) "
            f"RETURNING {quote(model._meta.pk.column)}"), fields


def insert(instance: Model) -> None:
    """Store a new instance as `save()` would (defaults, auto_now dates, values prepared by each field) and
    set its primary key; no signals are sent, so the caller writes what they would have (its history row)."""
    sql, fields = _insert_sql(type(instance))
    values = [field.get_db_prep_save(field.pre_save(instance, True), connection) for field in fields]
    instance.pk = fetch_one(sql, values)[0]
    instance._state.adding, instance._state.db = False, DEFAULT_DB_ALIAS


_NAMED = re.compile(r"\[\[(\w+)(?:\.(\w+))?\]\]")


def named(template: str, **aliases: type[Model]) -> str:
    """SQL whose tables and columns are named from the models: `[[i]]` is the table of the model given as `i`,
    followed by the alias (`"ingest_issue" i`), and `[[i.title]]` that alias's column for the field (`i."title"`),
    so that a renamed table or column changes the statement with it. KeyError on an alias not given,
    FieldDoesNotExist on a field the model lacks."""
    quote = connection.ops.quote_name

    def name(found: re.Match) -> str:
        alias, field = found.groups()
        model = aliases[alias]
        if field is None:
            return f"{quote(model._meta.db_table)} {alias}"
        return f"{alias}.{quote(model._meta.get_field(field).column)}"

    return _NAMED.sub(name, template)


def user_row(user_id: int):
    """The user with this id, read without the ORM: every request of a signed-in person makes this read, and
    through the ORM it costs about 0.7 ms of CPU, as much as the rest of an API call's own queries."""
    User = get_user_model()
    row = fetch_one(_user_sql(User), [user_id])
    return instance(User, row) if row else None


@cache
def _user_sql(User: type[Model]) -> str:
    return f"SELECT {columns(User, 'u')} FROM {connection.ops.quote_name(User._meta.db_table)} u WHERE u.id = %s"


@cache
def _history_tables(model: type[Model]) -> tuple[str, str, str]:
    """The model's table, its history table and its columns, quoted."""
    quote = connection.ops.quote_name
    names = ", ".join(quote(field.column) for field in model._meta.concrete_fields)
    return quote(model._meta.db_table), quote(model.history.model._meta.db_table), names


def copy_to_history(model: type[Model], where: str, params: Sequence, *, date, reason: str | None,
                    user_id: int | None) -> None:
    """One "+" history row for each row of `model` matching `where`, made in the database by one INSERT … SELECT
    from the stored rows themselves."""
    table, history_table, names = _history_tables(model)
    execute(f"INSERT INTO {history_table} ({names}, history_date, history_change_reason, history_type, "
            f"history_user_id) SELECT {names}, %s, %s, '+', %s FROM {table} WHERE {where}",
            [date, reason, user_id, *params])


def advisory_lock(key: int) -> None:
    """PostgreSQL's lock on `key` until the transaction ends (other databases lock the whole file on write)."""
    if connection.vendor == "postgresql":
        execute("SELECT pg_advisory_xact_lock(%s)", [key])
