"""Middleware: a database connection lost under a request is a 503 that says nothing was saved, not a 500.

PostgreSQL can drop a connection (a restart, a failover, an administrator's pg_terminate_backend, PgBouncer
recycling a server). Every write runs in a transaction, so a request cut off this way changed nothing; the
person is told so and can send again, and the broken connection is closed so the next request opens a new one.
"""
from __future__ import annotations

import logging

from django.db import DatabaseError, InterfaceError, OperationalError, connections
from django.http import JsonResponse
from django.shortcuts import render

log = logging.getLogger(__name__)
LOST = "The connection to the database was lost while this was being done, so nothing was saved. Send it again."


class DatabaseConnectionLost:
    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        return self.get_response(request)

    def process_exception(self, request, exception):
        if not isinstance(exception, OperationalError | InterfaceError) or not _connection_lost():
            return None
        log.warning("database connection lost under %s %s: %r", request.method, request.path, exception)
        for conn in connections.all(initialized_only=True):
            conn.close_if_unusable_or_obsolete()
        if request.path.startswith("/api/"):
            response = JsonResponse({"detail": LOST}, status=503)
        else:
            response = render(request, "503.html", {"message": LOST}, status=503)
        response["Retry-After"] = "5"
        return response


def _connection_lost() -> bool:
    """True when a connection is no longer usable: an operational error on a healthy connection (a lock
    timeout, say) is a different fault and stays a 500."""
    for conn in connections.all(initialized_only=True):
        if conn.connection is None:
            return True  # it could not connect at all: the database is down or refuses connections
        try:
            if not conn.is_usable():
                return True
        except DatabaseError:
            return True
    return False
