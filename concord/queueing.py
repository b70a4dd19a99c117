"""Handing long work to the Celery queue, and saying so when the queue (Redis) does not answer.

Labeling never needs the queue; ingests and summaries do. With the broker away, a send fails at once
(no retries: the person who clicked is waiting) and the job's row says why, instead of the page failing.
"""
from __future__ import annotations

import logging

from django.core.cache import cache
from kombu.exceptions import OperationalError
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeoutError

log = logging.getLogger(__name__)
UNAVAILABLE = ("The task queue is unavailable (Redis does not answer), so this was not started; labeling goes on. "
               "Start it again when the queue is back.")


class QueueUnavailable(RuntimeError):
    pass


def send(task, *args) -> None:
    """task.apply_async(args), or QueueUnavailable when the broker cannot take it."""
    try:
        task.apply_async(args=args, retry=False)
    except (OperationalError, RedisConnectionError, RedisTimeoutError, OSError) as exc:
        log.warning("could not queue %s%r: %r", task.name, args, exc)
        raise QueueUnavailable(UNAVAILABLE) from exc


def send_once(key: str, seconds: int, task, *args) -> bool:
    """Send the task unless one sent under `key` is still under way (the task calls `done(key)` when it ends;
    after `seconds` a lost one is sent again). False when the queue is unavailable: the caller does the work
    itself. With tasks run in-process the work is done on return."""
    # add() is false when the key exists, and also when the cache is away: only a key seen set means "running".
    if not cache.add(key, True, timeout=seconds) and cache.get(key):
        return True
    try:
        send(task, *args)
    except QueueUnavailable:
        cache.delete(key)
        return False
    return True


def under_way(key: str) -> bool:
    return bool(cache.get(key))


def done(key: str) -> None:
    cache.delete(key)
