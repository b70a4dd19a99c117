"""Reads that may be a little stale, from a PostgreSQL streaming replica (DATABASE_REPLICA_URL).

Only code that says so reads from the replica, inside `stale_reads()`: the agreement figures' inputs, the
exports that need no table of their own, statistics. Everything else, and every write, goes to the primary. A
person never misses their own write: every state-changing request of theirs records the primary's WAL position
after it (in a cookie and in the shared cache), and a stale read goes to the replica only when the replica has
replayed that far. And nothing read from the replica claims to be newer than it is: `stale_reads` yields the
moment up to which the data is complete — the moment it looked, when the replica had replayed everything the
primary had written then; else the commit time of the last transaction it replayed.
"""
from __future__ import annotations

import logging
import re
import time
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from datetime import datetime

from django.conf import settings
from django.core.cache import cache
from django.db import DatabaseError, connections
from django.utils import timezone

log = logging.getLogger(__name__)

ALIAS = "replica"
PRIMARY = "default"
COOKIE = "concord_wrote"
# A WAL position as PostgreSQL writes it (pg_lsn's text form): anything else in the cookie is ignored.
_LSN = re.compile(r"[0-9A-F]{1,8}/[0-9A-F]{1,8}")
_reading: ContextVar[bool] = ContextVar("replica_reading", default=False)
REMEMBERED = 60 * 60  # seconds a person's last write position is kept: longer than any lag worth serving


def configured() -> bool:
    return ALIAS in settings.DATABASES


class Router:
    """Reads inside `stale_reads()` that chose the replica go there; all else to the primary. The replica is
    never migrated (it is a copy of the primary, read-only)."""

    def db_for_read(self, model, **hints):
        return ALIAS if _reading.get() else PRIMARY

    def db_for_write(self, model, **hints):
        return PRIMARY

    def allow_relation(self, obj1, obj2, **hints):
        return True

    def allow_migrate(self, db, app_label, model_name=None, **hints):
        return db != ALIAS


@dataclass(frozen=True)
class Freshness:
    """Where the reads went and the moment up to which every committed write is in what they saw."""

    source: str  # "primary" or "replica"
    as_of: datetime


def _user_key(user_id: int) -> str:
    return f"replica:wrote:{user_id}"


def last_write(request) -> str | None:
    """The furthest WAL position this person's writes reached, from their cookie and the shared cache."""
    cached = cache.get(_user_key(request.user.pk)) if request.user.is_authenticated else None
    positions = [p for p in (request.COOKIES.get(COOKIE), cached) if isinstance(p, str) and _LSN.fullmatch(p)]
    return max(positions, key=lambda p: tuple(int(part, 16) for part in p.split("/")), default=None)


def _primary_position() -> tuple[str, datetime]:
    with connections[PRIMARY].cursor() as cursor:
        cursor.execute("SELECT pg_current_wal_lsn()::text, clock_timestamp()")
        return cursor.fetchone()


def _replica_state(*positions: str) -> tuple[bool, datetime | None]:
    """Whether the replica has replayed past every position given, and its last replayed commit's time."""
    checks = " AND ".join(["pg_last_wal_replay_lsn() >= %s::pg_lsn"] * len(positions)) or "true"
    with connections[ALIAS].cursor() as cursor:
        cursor.execute(f"SELECT COALESCE({checks}, false), pg_last_xact_replay_timestamp()", positions)
        return cursor.fetchone()


def choose(written: str | None = None, wait: float = 0.0) -> Freshness:
    """Where reads that may be stale go now: to the replica when it has replayed past `written` (a person's last
    write); `wait`: seconds to wait for it to hold everything the primary has, rather than serve an older state
    (a worker can wait; a page should not). Without a replica, or with one that does not answer, the primary."""
    if not configured():
        return Freshness("primary", timezone.now())
    try:
        return _choose(written, wait)
    except DatabaseError as exc:  # the replica is away: the primary serves, as without one
        log.warning("the replica did not answer (%s); reading from the primary", exc)
        connections[ALIAS].close()
        return Freshness("primary", timezone.now())


@contextmanager
def reading(freshness: Freshness) -> Iterator[Freshness]:
    """Reads inside go where `freshness` chose."""
    token = _reading.set(freshness.source == "replica")
    try:
        yield freshness
    finally:
        _reading.reset(token)


@contextmanager
def stale_reads(written: str | None = None, wait: float = 0.0) -> Iterator[Freshness]:
    """`choose`, then read there; yields the choice, whose `as_of` a page shows beside what it read."""
    with reading(choose(written, wait)) as freshness:
        yield freshness


def _choose(written: str | None, wait: float) -> Freshness:
    position, now = _primary_position()
    deadline = time.monotonic() + wait
    while True:
        caught_up, replayed_at = _replica_state(position, *([written] if written else []))
        if caught_up:
            return Freshness("replica", now)
        if time.monotonic() >= deadline:
            break
        time.sleep(0.05)
    if written is not None and not _replica_state(written)[0]:
        return Freshness("primary", timezone.now())
    if replayed_at is None:  # nothing replayed since the replica started: how old it is is unknown
        return Freshness("primary", timezone.now())
    return Freshness("replica", replayed_at)


def streamed(chunks: Iterator, freshness: Freshness) -> Iterator:
    """A streamed response's body read where `freshness` chose: its generator runs after the view returned."""
    with reading(freshness):
        yield from chunks


def as_of_header(response, freshness: Freshness):
    """The moment up to which every write is in the response, for whoever keeps the file."""
    response["Concord-Data-As-Of"] = freshness.as_of.isoformat()
    return response


class RememberWrites:
    """After a state-changing request of a signed-in person, the primary's WAL position in a cookie and in the
    shared cache, so that their next stale read waits for it (on the replica) or goes to the primary."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        response = self.get_response(request)
        if (configured() and request.method not in {"GET", "HEAD", "OPTIONS", "TRACE"}
                and getattr(request, "user", None) and request.user.is_authenticated):
            try:
                position, _ = _primary_position()
            except DatabaseError:
                return response  # the write failed with the database; nothing to wait for
            response.set_cookie(COOKIE, position, max_age=REMEMBERED, httponly=True, samesite="Lax",
                                secure=settings.SESSION_COOKIE_SECURE)
            cache.set(_user_key(request.user.pk), position, REMEMBERED)
        return response
