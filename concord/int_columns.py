"""Integer columns of a query as numpy arrays, without a Python object per value on PostgreSQL.

The agreement figures read every label of a round: 280,000 rows × 5 ids at 40,000 reports × 7 raters. Through
the ORM that is 1.4 million Python ints, three quarters of the dashboard's reading time. On PostgreSQL the
database packs the rows into one bytea (each value 8 bytes, big-endian) that numpy reads in place, a large table
in pieces read by two connections at once; other databases take the ORM path, with the same result. A caller
that keeps less than the five int64 columns (the dashboard: 280 MB at a million reports × 7) turns each piece into
what it keeps as the piece arrives (`int_pieces`), while the other connection's piece is still being packed."""
from __future__ import annotations

import threading
from array import array
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import TypeVar

from django.core.exceptions import EmptyResultSet, FieldDoesNotExist
from django.db import connections, transaction
from django.db.models import Max, Min, QuerySet
from psycopg import sql

from stats.lazy_numpy import np

Piece = TypeVar("Piece")


def int_columns(queryset: QuerySet, fields: list[str]) -> list[np.ndarray]:
    """`fields` of the queryset's rows (integer or boolean fields of its model; NULL read as 0), one int64 array
    per field, the rows in no particular order."""
    pieces = int_pieces(queryset, fields, _native)
    return [np.concatenate([columns[i] for columns in pieces]) for i in range(len(fields))]


def int_pieces(queryset: QuerySet, fields: list[str], each: Callable[[list[np.ndarray]], Piece]) -> list[Piece]:
    """What `each` makes of the columns of each piece of the rows (`int_columns`' values, as int64 arrays that
    may be big-endian views of the database's bytes), called on the thread that read the piece: together, the
    pieces hold every row once."""
    if connections[queryset.db].vendor == "postgresql":
        return _packed(queryset, fields, each)
    return [each(_streamed(queryset, fields))]


def _native(columns: list[np.ndarray]) -> list[np.ndarray]:
    # Each column turned into this machine's byte order as it is copied out: one pass per column, no other copy.
    return [column.astype(np.int64) for column in columns]


def _streamed(queryset: QuerySet, fields: list[str]) -> list[np.ndarray]:
    """Through the ORM, into compact arrays (a list of 280,000 tuples would hold ~60 MB)."""
    rows = queryset.values_list(*fields)
    columns = [array("q") for _ in fields]
    appends = [column.append for column in columns]
    for row in rows.iterator(chunk_size=100000):
        for append, value in zip(appends, row, strict=True):
            append(value or 0)
    return [np.frombuffer(column, dtype=np.int64) for column in columns]


# Primary keys a piece of a large read spans at most: about 40 MB packed for a million labels' five columns.
PIECE = 1 << 20


def _packed(queryset: QuerySet, fields: list[str], each: Callable = _native) -> list:
    """One query where the table is small. Where it is large, pieces by ranges of primary key, read by two
    connections at once (the database packs the rows on one core per query) under one snapshot: the first
    connection's transaction exports it and the second's imports it, so that both read the table as it was at
    one moment, as one query would. Where no snapshot can be shared (a caller's transaction already open, a hot
    standby, which cannot export one), the pieces are read one after another in one transaction, or, inside a
    caller's transaction, as one query."""
    alias = queryset.db
    if not _large(queryset, alias) or connections[alias].in_atomic_block:
        return [_read(queryset, fields, alias, each)]
    with transaction.atomic(using=alias):
        snapshot = _exported(alias)
        # The ranges from the snapshot itself; the first and last open-ended, so that every row it holds is in
        # exactly one piece.
        bounds = _bounds(queryset, alias)
        starts = list(range(bounds[0], bounds[1] + 1, PIECE)) if bounds else [0]
        pieces = [queryset.filter(**({"pk__gte": start} if i else {}),
                                  **({"pk__lt": start + PIECE} if i < len(starts) - 1 else {}))
                  for i, start in enumerate(starts)]
        read: list = [None] * len(pieces)
        # Each connection takes the next piece when done with its last: the queryset's rows need not be spread
        # evenly over the table's keys (a round's labels among other rounds'), and both connections end together.
        todo = iter(enumerate(pieces))
        lock = threading.Lock()
        # A piece that fails ends the read: the other connection takes no further piece.
        failed = threading.Event()

        def drain() -> None:
            while not failed.is_set():
                with lock:
                    i, piece = next(todo, (None, None))
                if piece is None:
                    return
                try:
                    read[i] = _read(piece, fields, alias, each)
                except BaseException:
                    failed.set()
                    raise

        if snapshot is None:
            drain()
            return read
        with ThreadPoolExecutor(max_workers=1, thread_name_prefix="int-columns") as helper:
            theirs = helper.submit(_read_under, snapshot, drain, alias)
            drain()
            theirs.result()
    return read


def _bounds(queryset: QuerySet, alias: str) -> tuple[int, int] | None:
    """The lowest and highest primary key of the queryset's table (two index probes), where keys are integers."""
    if queryset.model._meta.pk.get_internal_type() not in ("AutoField", "BigAutoField", "IntegerField",
                                                           "BigIntegerField"):
        return None
    bounds = queryset.model._base_manager.using(alias).aggregate(low=Min("pk"), high=Max("pk"))
    return None if bounds["low"] is None else (bounds["low"], bounds["high"])


def _large(queryset: QuerySet, alias: str) -> bool:
    bounds = _bounds(queryset, alias)
    return bounds is not None and bounds[1] - bounds[0] >= PIECE


def _exported(alias: str) -> str | None:
    """Makes the transaction just begun see one snapshot throughout, and exports it (None on a hot standby)."""
    with connections[alias].cursor() as cursor:
        cursor.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY")
        cursor.execute("SELECT CASE WHEN pg_is_in_recovery() THEN NULL ELSE pg_export_snapshot() END")
        return cursor.fetchone()[0]


def _read_under(snapshot: str, work: Callable[[], None], alias: str) -> None:
    """`work` done on this thread's own connection, in a transaction that sees the exported snapshot."""
    try:
        with transaction.atomic(using=alias):
            with connections[alias].cursor() as cursor:
                cursor.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY")
                cursor.cursor.execute(sql.SQL("SET TRANSACTION SNAPSHOT {}").format(sql.Literal(snapshot)))
            work()
    finally:
        connections[alias].close()  # this thread's connection, which no one else will use


def _read(queryset: QuerySet, fields: list[str], alias: str, each: Callable = _native):
    rows = queryset.values_list(*fields)
    try:
        query, params = rows.query.sql_with_params()
    except EmptyResultSet:  # .none(), or a filter Django knows matches nothing
        return each([np.zeros(0, dtype=np.int64) for _ in fields])
    # The inner query's columns by position (their names may repeat across joined tables); booleans have no cast
    # to bigint but one to integer.
    names = [f"c{i}" for i in range(len(fields))]
    cells = " || ".join(
        f"int8send(COALESCE(q.{name}{'::int' if _is_boolean(rows, field) else ''}::int8, 0))"
        for name, field in zip(names, fields, strict=True))
    packed_sql = f"SELECT string_agg({cells}, '') FROM ({query}) AS q({', '.join(names)})"
    with connections[alias].cursor() as cursor:
        # Binary results: the bytea arrives as bytes, not as hex text to decode.
        cursor.cursor.execute(packed_sql, params, binary=True)
        data = cursor.fetchone()[0]
    values = np.frombuffer(data or b"", dtype=">i8").reshape(-1, len(fields))
    return each([values[:, i] for i in range(len(fields))])


def _is_boolean(rows: QuerySet, field: str) -> bool:
    try:
        return rows.model._meta.get_field(field).get_internal_type() == "BooleanField"
    except FieldDoesNotExist:  # an annotation or a lookup across relations: the caller casts it
        return False
