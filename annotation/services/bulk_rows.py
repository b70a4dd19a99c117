"""Writing many rows fast: COPY on PostgreSQL, executemany elsewhere, and history rows made in the
database with one INSERT … SELECT. Django's bulk_create spends most of its time preparing each value,
which at 270,000 labels (and as many history rows) is most of a minute."""
from __future__ import annotations

from collections.abc import Iterable, Sequence

from django.db import connection
from django.db.models import Model
from django.utils import timezone


def insert_rows(model: type[Model], columns: Sequence[str], rows: Iterable[Sequence]) -> None:
    table = connection.ops.quote_name(model._meta.db_table)
    names = ", ".join(connection.ops.quote_name(c) for c in columns)
    with connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            with cursor.cursor.copy(f"COPY {table} ({names}) FROM STDIN") as copy:
                for row in rows:
                    copy.write_row(row)
            return
        marks = ", ".join(["%s"] * len(columns))
        cursor.executemany(f"INSERT INTO {table} ({names}) VALUES ({marks})", list(rows))


def history_from(model: type[Model], where: str, params: Sequence, reason: str) -> None:
    """One "+" history row for each row of `model` matching `where`, as django-simple-history would write."""
    history = model.history.model
    q = connection.ops.quote_name
    columns = [f.column for f in model._meta.concrete_fields]
    select = ", ".join(q(c) for c in columns)
    with connection.cursor() as cursor:
        cursor.execute(
            f"INSERT INTO {q(history._meta.db_table)} ({select}, history_date, history_change_reason, history_type) "
            f"SELECT {select}, %s, %s, '+' FROM {q(model._meta.db_table)} WHERE {where}",
            [timezone.now(), reason[:100], *params],
        )
