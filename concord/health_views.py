"""`/healthz`: the process answers. `/readyz`: what it needs to do its work answers too — the database, every
migration applied, the broker, and a worker's heartbeat seen within WORKER_SEEN_SECONDS — as JSON, one entry a
check, 503 when one that counts fails.

`?role=web` counts only what a web host needs to serve pages (the database and its migrations): a balancer takes
a web host out when its database is away, not when the installation's worker is, which no web host can mend.

Each check says what it found (the workers' names, an error's text) only to an admin, or with DEBUG on (`make run`):
a balancer needs the status, and an error's text may name hosts and users that a stranger should not read.
"""
from __future__ import annotations

from celery import current_app
from django.conf import settings
from django.db import connection
from django.db.migrations.executor import MigrationExecutor
from django.http import JsonResponse
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET

from . import workers

CHECKS = ("database", "migrations", "broker", "worker")
ROLES = {"all": CHECKS, "web": ("database", "migrations")}
_migrated = False  # once every migration is applied it stays so for this process's life (a deploy restarts it)


def _database() -> tuple[bool, str]:
    with connection.cursor() as cursor:
        cursor.execute("SELECT 1")
    return True, connection.vendor


def _migrations() -> tuple[bool, str]:
    global _migrated
    if not _migrated:
        executor = MigrationExecutor(connection)
        waiting = executor.migration_plan(executor.loader.graph.leaf_nodes())
        if waiting:
            return False, f"{len(waiting)} not applied: run manage.py migrate"
        _migrated = True
    return True, "applied"


def _broker() -> tuple[bool, str]:
    with current_app.connection_for_write(connect_timeout=1) as conn:
        conn.ensure_connection(max_retries=1, interval_start=0, timeout=2)
        return True, str(conn.transport_cls)


def _worker() -> tuple[bool, str]:
    if workers.eager():
        return True, "tasks run in the request (CELERY_EAGER)"
    up = workers.seen()
    if not up:
        return False, f"no worker seen for a minute: start one with `{workers.start_command()}`"
    return True, ", ".join(f"{b.name} ({b.queues})" for b in up)


RUN = {"database": _database, "migrations": _migrations, "broker": _broker, "worker": _worker}


@never_cache
@require_GET
def healthz(request):
    return JsonResponse({"status": "ok"})


@never_cache
@require_GET
def readyz(request):
    role = request.GET.get("role", "all")
    if role not in ROLES:
        return JsonResponse({"role": f"one of {', '.join(ROLES)}"}, status=400)
    results = {}
    for name in CHECKS:
        try:
            ok, said = RUN[name]()
        except Exception as exc:  # noqa: BLE001 — a check that cannot run has failed, whatever it raised
            ok, said = False, f"{type(exc).__name__}: {str(exc)[:200]}"
        results[name] = {"ok": ok, "detail": said}
    if not (settings.DEBUG or request.user.is_staff):
        results = {name: {"ok": result["ok"]} for name, result in results.items()}
    ready = all(results[name]["ok"] for name in ROLES[role])
    return JsonResponse({"status": "ready" if ready else "not ready", "role": role, "checks": results},
                        status=200 if ready else 503)
