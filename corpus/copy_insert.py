"""New rows written by PostgreSQL's COPY, for a restore's hundreds of thousands of rows.

`bulk_create` sends `INSERT … SELECT * FROM UNNEST(%s::type[], …)`, and psycopg builds and escapes those arrays
in Python: at 10,000 reports that and Django's compiling of the insert were a third of a restore. COPY streams
the same values, each prepared by its field exactly as an insert prepares it. The ids are drawn from the
table's sequence first, so every new row's id is known without RETURNING. Elsewhere (SQLite), or for a table
whose key the database does not number, `bulk_create` does it.
"""
from __future__ import annotations

from django.db import DEFAULT_DB_ALIAS, connections, models
from psycopg import sql


def insert(model: type[models.Model], instances: list[models.Model]) -> None:
    """Insert unsaved `instances` of `model`, each given its new id. Constraints hold as for an insert: a
    value a column refuses raises the database's error, and the caller's transaction decides what stays."""
    meta = model._meta
    connection = connections[DEFAULT_DB_ALIAS]  # not the proxy, whose look-up per value cost a tenth of a restore
    if connection.vendor != "postgresql" or not isinstance(meta.pk, models.AutoField) or not instances:
        model.objects.bulk_create(instances)
        return
    fields = meta.concrete_fields
    statement = sql.SQL("COPY {} ({}) FROM STDIN").format(
        sql.Identifier(meta.db_table), sql.SQL(", ").join(sql.Identifier(f.column) for f in fields))
    with connection.cursor() as cursor:
        cursor.execute("SELECT nextval(pg_get_serial_sequence(%s, %s)) FROM generate_series(1, %s)",
                       [meta.db_table, meta.pk.column, len(instances)])
        for instance, (pk,) in zip(instances, cursor.fetchall(), strict=True):
            setattr(instance, meta.pk.attname, pk)
        with cursor.cursor.copy(statement) as copy:
            for instance in instances:
                # pre_save as an insert calls it (a restore switches auto_now off, so times stay the file's).
                copy.write_row([f.get_db_prep_save(f.pre_save(instance, True), connection) for f in fields])
    for instance in instances:
        instance._state.adding, instance._state.db = False, connection.alias
