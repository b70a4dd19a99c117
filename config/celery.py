from __future__ import annotations

import ctypes
import os
import sys

from celery import Celery
from celery.signals import task_postrun, worker_init, worker_ready, worker_shutdown

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
# Celery's Django fix-up runs every system check when a worker starts, and the URL checks import the URL conf:
# every view, the API and numpy, about 30 MiB a worker serving no URL would hold for good. The worker runs the
# other checks itself (below); the URLs are checked where they are served (`manage.py check`, migrate, CI).
os.environ.setdefault("CELERY_SKIP_CHECKS", "1")

app = Celery("concord")
app.config_from_object("django.conf:settings", namespace="CELERY")



@worker_init.connect
def check_all_but_urls(**kwargs) -> None:
    from django.core import checks
    from django.core.management.base import BaseCommand

    tags = [tag for tag in checks.registry.registry.tags_available() if tag != checks.Tags.urls]
    # As Django's own commands do: errors stop the worker, warnings are printed.
    BaseCommand().check(tags=tags)


@worker_init.connect
def give_memory_back_after_tasks(**kwargs) -> None:
    # glibc keeps what a task freed in its thread's malloc arena; an idle worker would hold an ingest's or a
    # summary batch's peak (about 10 MiB) for good. malloc_trim returns it to the system.
    if sys.platform.startswith("linux"):
        task_postrun.connect(_trim, weak=False)


def _trim(**kwargs) -> None:
    try:
        ctypes.CDLL(None).malloc_trim(0)
    except AttributeError:  # not glibc
        pass


# The worker's heartbeat in the database (concord.workers), from the moment it takes tasks until it stops. Imported
# here, when the signal comes: concord.workers needs Django's models, which `celery -A config` has not loaded yet.
@worker_ready.connect
def start_heartbeat(sender=None, **kwargs) -> None:
    from concord import workers

    workers.start_beating(sender)


@worker_shutdown.connect
def stop_heartbeat(sender=None, **kwargs) -> None:
    from concord import workers

    workers.stop_beating(sender)
