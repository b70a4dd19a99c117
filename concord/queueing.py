"""Handing long work to the Celery queue, and saying so when the queue (Redis) does not answer.

Labeling never needs the queue; ingests and summaries do. With the broker away, a send fails at once
(no retries: the person who clicked is waiting) and the job's row says why, instead of the page failing.
"""
from __future__ import annotations

import logging

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
