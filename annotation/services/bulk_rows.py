"""Writing many rows fast: COPY on PostgreSQL, executemany elsewhere (their history rows: concord.history.
record_rows_created). Django's bulk_create spends most of its time preparing each value, which at 270,000
labels (and as many history rows) is most of a minute."""
from __future__ import annotations

from collections.abc import Iterable, Sequence

from django.db import connection
from django.db.models import Model


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
