"""Which Celery workers are up, from the heartbeat each writes to the database.

A worker beats every WORKER_BEAT_SECONDS from a thread of its own once it is ready to take tasks, naming its
queues; it removes its row when it stops cleanly. A queue no worker has beaten for within WORKER_SEEN_SECONDS has
no worker: pages that wait on one say so and how to start it, and `/readyz` answers 503. Celery's own worker
heartbeats travel as events through the broker, which the folder broker of `make run` does not carry, and a
page would have to listen for them; a row is read with one query by any process.
"""
from __future__ import annotations

import logging
import threading
from datetime import timedelta

from celery import current_app
from django.conf import settings
from django.db import DatabaseError
from django.db import connection as db_connection
from django.utils import timezone

from .models import WorkerBeat

log = logging.getLogger(__name__)
_stop = threading.Event()
# What to tell a person when no worker is up, by set-up: with Redis the workers are started on their own; an
# installed Concord (its data outside the package) has the `concord` command rather than a checkout's Makefile.
HOW_TO_START = {("checkout", "redis"): "make worker", ("checkout", "folder"): "make run",
                ("installed", "redis"): "concord worker", ("installed", "folder"): "concord run"}


def eager() -> bool:
    """Tasks run inside the request that sends them (CELERY_EAGER=1): no worker is needed. Read from Celery's
    current app, which is config.celery's (the wiring sits above every app, which never imports it)."""
    return bool(current_app.conf.task_always_eager)


def seen(queue: str | None = None, within: float | None = None) -> list[WorkerBeat]:
    """The workers that beat within `within` seconds (WORKER_SEEN_SECONDS), of those taking `queue` if named."""
    cutoff = timezone.now() - timedelta(seconds=settings.WORKER_SEEN_SECONDS if within is None else within)
    beats = WorkerBeat.objects.filter(seen_at__gte=cutoff).order_by("name")
    return [b for b in beats if queue is None or queue in b.queues.split(",")]


def missing(queue: str | None = None) -> bool:
    """Whether work sent to `queue` (any queue) waits for a worker that is not there."""
    return not eager() and not seen(queue)


def start_command() -> str:
    installed = "installed" if settings.DATA_DIR != settings.BASE_DIR else "checkout"
    return HOW_TO_START[installed, "redis" if settings.REDIS_URL else "folder"]


def _beat(name: str, queues: str) -> None:
    started = timezone.now()
    try:
        while True:
            try:
                WorkerBeat.objects.update_or_create(name=name, defaults={
                    "queues": queues[:255], "seen_at": timezone.now(), "started_at": started})
            except DatabaseError:
                log.warning("could not write the worker's heartbeat", exc_info=True)
                db_connection.close()  # opened anew at the next beat
            if _stop.wait(settings.WORKER_BEAT_SECONDS):
                return
    finally:
        db_connection.close()


def start_beating(sender) -> None:
    name = getattr(sender, "hostname", "") or "worker"
    queues = ",".join(sorted(q.name for q in sender.task_consumer.queues)) if sender is not None else ""
    _stop.clear()
    threading.Thread(target=_beat, args=(name, queues), name="worker-beat", daemon=True).start()


def stop_beating(sender) -> None:
    _stop.set()
    name = getattr(sender, "hostname", None)
    if name:
        try:
            WorkerBeat.objects.filter(name=name).delete()
        except DatabaseError:
            log.warning("could not remove the worker's heartbeat", exc_info=True)
