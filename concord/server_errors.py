"""Middleware: a database connection lost under a request is a 503 that says nothing was saved, not a 500.

PostgreSQL can drop a connection (a restart, a failover, an administrator's pg_terminate_backend, PgBouncer
recycling a server). Every write runs in a transaction, so a request cut off this way changed nothing; the
person is told so and can send again, and the broken connection is closed so the next request opens a new one.
"""
from __future__ import annotations

import logging
import sys

from django.db import DatabaseError, InterfaceError, OperationalError, connections
from django.http import JsonResponse
from django.shortcuts import render
from django.views import defaults

log = logging.getLogger(__name__)
LOST = "The connection to the database was lost while this was being done, so nothing was saved. Send it again."


class DatabaseConnectionLost:
    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        return self.get_response(request)

    def process_exception(self, request, exception):
        return lost_response(request, exception) if connection_lost(exception) else None


def server_error(request, *args, **kwargs):
    """handler500: what escaped everything else (a session saved after the view, another middleware's write)
    is a 503 too when the connection was lost, and Django's own 500 page otherwise."""
    exception = sys.exc_info()[1]
    if connection_lost(exception):
        return lost_response(request, exception)
    return defaults.server_error(request, *args, **kwargs)


def lost_response(request, exception):
    log.warning("database connection lost under %s %s: %r", request.method, request.path, exception)
    for conn in connections.all(initialized_only=True):
        conn.close_if_unusable_or_obsolete()
    if request.path.startswith("/api/"):
        response = JsonResponse({"detail": LOST}, status=503)
    else:
        response = render(request, "503.html", {"message": LOST}, status=503)
    response["Retry-After"] = "5"
    return response


# PostgreSQL's codes for a connection that is gone: class 08 (connection exception) and the server shutting
# the session down (57P01 administrator command, 57P02 crash, 57P03 cannot connect now).
LOST_STATES = ("08", "57P01", "57P02", "57P03")


def connection_lost(exception) -> bool:
    """Whether `exception` says the database connection is gone. Read from the error itself: by the time it is
    handled, a later query may already have opened a new, healthy connection. An operational error with a code
    of its own (a lock or statement timeout) is a different fault and stays a 500."""
    if isinstance(exception, InterfaceError):
        return True
    if not isinstance(exception, OperationalError):
        return False
    cause = exception.__cause__
    if type(cause).__module__.startswith("psycopg"):
        state = getattr(cause, "sqlstate", None)
        # No code: the client's own error, which for psycopg means the connection broke or never opened.
        return state is None or state.startswith(LOST_STATES)
    return _unusable()


def _unusable() -> bool:
    """No code to go by (SQLite, say): a connection that is missing or fails a trivial query."""
    for conn in connections.all(initialized_only=True):
        if conn.connection is None:
            return True  # it could not connect at all: the database is down or refuses connections
        try:
            if not conn.is_usable():
                return True
        except DatabaseError:
            return True
    return False
