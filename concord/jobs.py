"""Background work, in one place: a job's row and its life, handing work to the queue, and making a task.

Every long piece of work is a Celery task made here by `task(work, queue=…)` from a function of the service
that does it, so that the service may send its own task without importing a tasks module that imports it back,
and so that what a task runs is a reference that linters and "find usages" see, never a dotted string. Work
with a row (an ingest run, a summary batch, a machine rater's run) is a `Job`: queued → running → succeeded |
failed, with a heartbeat its worker sets while it works; `interrupt_stale` tells a job whose heartbeat stopped
(its worker was killed) from one that is slow.

With the broker away a send fails at once (no retries: the person who clicked is waiting) and the job's row
says why, instead of the page failing. Labeling never needs the queue.
"""
from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from contextlib import nullcontext
from dataclasses import dataclass
from datetime import timedelta

from celery import shared_task
from django.conf import settings
from django.core.cache import cache
from django.db import DatabaseError, models, transaction
from django.db import connection as db_connection
from django.db.models import Q
from django.dispatch import Signal
from django.utils import timezone
from django.utils.translation import gettext_lazy as _
from kombu.exceptions import OperationalError
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeoutError

from . import child_processes

log = logging.getLogger(__name__)
UNAVAILABLE = ("The task queue is unavailable (Redis does not answer), so this was not started; labeling goes on. "
               "Start it again when the queue is back.")
# The queues a task may name; each can have workers of its own, so that a long ingest never delays summaries
# or statistics (docker-compose.yml runs one worker per queue; `make worker` and the tests' worker take all).
QUEUES = ("ingest", "summaries", "statistics")
_queue_of: dict[str, str] = {}  # task name → its queue, for `route`


# How an interrupted job's message begins (interrupt_stale): such a job is taken again when its task comes back.
INTERRUPTED = "Interrupted: "
# How often a job whose child process died is sent again before it is left failed.
CHILD_LOST_RETRIES = 2


class QueueUnavailable(RuntimeError):
    pass


class JobStatus(models.TextChoices):
    QUEUED = "queued", _("Queued")
    RUNNING = "running", _("Running")
    SUCCEEDED = "succeeded", _("Succeeded")
    FAILED = "failed", _("Failed")


FINISHED = {JobStatus.SUCCEEDED, JobStatus.FAILED}


class Job(models.Model):
    """What every background job's row holds: its status, who started it, when, what it last said, and a
    heartbeat set by the running process — a job whose heartbeat stops was killed."""

    Status = JobStatus

    status = models.CharField(max_length=16, choices=Status.choices, default=Status.QUEUED)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    heartbeat_at = models.DateTimeField(null=True, blank=True)
    message = models.TextField(blank=True)
    # The Celery worker (name@host) that took it last: where it runs, and which worker took it over.
    worker = models.CharField(max_length=255, blank=True)

    class Meta:
        abstract = True
        ordering = ["-created_at", "-id"]

    @property
    def is_finished(self) -> bool:
        return self.status in FINISHED

    def notice_subject(self) -> NoticeSubject | None:
        """What a notice of this job's end names (None: nobody is told)."""
        return None


@dataclass(frozen=True)
class NoticeSubject:
    job: str  # a code of accounts.notices.TERMS["job"]
    name: str
    url: str
    study_id: int | None = None


# Sent when a long job's owner is to hear that it ended: `job`, `failed` (bool), `subject` (a NoticeSubject).
job_finished = Signal()


def tell_owner(job: Job, always: bool = False) -> None:
    """The person who started a long job hears that it ended, succeeded or failed: one that took
    JOB_NOTICE_SECONDS or more, or (`always`) whose worker died. A shorter one, an upload refused at once among
    them, ended while they watched its page."""
    if job.created_by_id is None or job.status not in FINISHED:
        return
    failed = job.status == JobStatus.FAILED
    began = job.started_at or job.created_at
    if not always and (job.finished_at - began).total_seconds() < settings.JOB_NOTICE_SECONDS:
        return
    subject = job.notice_subject()
    if subject is None:
        return
    # Whoever tells people things (the notices) listens; the jobs know nothing of how they are told.
    job_finished.send(sender=type(job), job=job, failed=failed, subject=subject)


def task(work: Callable, *, queue: str, apart_from_worker: bool = False, job: type[Job] | None = None):
    """A Celery task that runs `work(*args)`. `apart_from_worker`: in a child process the worker ends when idle
    (concord.child_processes), for work that loads the statistics libraries. `job`: the model of the row whose id is the
    first argument; the work then runs only for the delivery that claims the row (`claim`), so that a task
    delivered twice runs once. Its name is the work's own, so renaming the function renames the task."""
    if queue not in QUEUES:
        raise ValueError(f"no queue {queue!r}; the queues are {', '.join(QUEUES)}")

    def run(self, *args):
        if job is not None:
            taken = claim(job, args[0], worker=self.request.hostname or "")
            if taken is None:
                return None  # finished already
            if not taken:
                # Another worker runs it and beats. This copy looks again later rather than leaving: if that
                # worker dies, its own delivery may already be spent (Redis hands an unacknowledged task to the
                # next worker once the visibility timeout has passed, whether its worker lives or not).
                if not self.request.is_eager:
                    self.apply_async(args=args, countdown=recheck_seconds(), retry=False)
                return None
        beating = (Heartbeat(job, args[0], worker=self.request.hostname or "")
                   if job is not None and not self.request.is_eager else nullcontext())
        try:
            with beating:
                return child_processes.call(work, *args) if apart_from_worker else work(*args)
        except child_processes.ChildLost as exc:
            if job is None:
                raise
            # The process running the work died (killed, out of memory) but this worker lives: the job is
            # marked interrupted and its task sent again at once, as Celery gives back a task whose pool
            # process died; twice at most, so that work that kills its process every time ends failed.
            again = self.request.retries < CHILD_LOST_RETRIES
            said = "running it again" if again else f"it ended so {CHILD_LOST_RETRIES + 1} times; not run again"
            job.objects.filter(pk=args[0], status=JobStatus.RUNNING).update(
                status=JobStatus.FAILED, finished_at=timezone.now(),
                message=f"{INTERRUPTED if again else ''}{exc} ({said})")
            if not again:
                raise
            raise self.retry(countdown=0, max_retries=CHILD_LOST_RETRIES, exc=exc) from None

    run.__name__, run.__qualname__, run.__doc__ = work.__name__, work.__qualname__, work.__doc__
    name = f"{work.__module__}.{work.__qualname__}"
    _queue_of[name] = queue
    # No result is stored: a job's row, or what the work keeps, is the result; sending needs no result store.
    return shared_task(run, name=name, ignore_result=True, bind=True)


def claim(model: type[Job], pk: int, worker: str = "") -> bool | None:
    """Take the job for this delivery of its task: True when it is this delivery's to run (queued, interrupted,
    or running with a heartbeat older than JOB_HEARTBEAT_STALE_SECONDS: its worker died), False when another
    worker runs it now, None when it has ended or is gone. One UPDATE, so that of two deliveries at once
    one takes it."""
    now = timezone.now()
    cutoff = now - timedelta(seconds=settings.JOB_HEARTBEAT_STALE_SECONDS)
    lapsed = Q(status=JobStatus.RUNNING) & (Q(heartbeat_at__lt=cutoff)
                                            | Q(heartbeat_at__isnull=True, started_at__lt=cutoff))
    # An interrupted job's task comes back when its worker died: it runs again. One that failed by itself stays.
    takeable = Q(status=JobStatus.QUEUED) | Q(status=JobStatus.FAILED, message__startswith=INTERRUPTED) | lapsed
    if model.objects.filter(takeable, pk=pk).update(status=JobStatus.RUNNING, heartbeat_at=now, worker=worker[:255]):
        return True
    status = model.objects.filter(pk=pk).values_list("status", flat=True).first()
    return False if status == JobStatus.RUNNING else None


class Heartbeat:
    """Beats the job's row from a thread of its own while the work runs, so that a job is taken over when its
    worker dies and only then: work that beats only between steps (a rater's fold, a slow page of an API) went
    longer than the staleness on a slow machine, and a second worker took over a job that was still running.
    Beats only while the row is running and this worker's, on a connection of the thread's own."""

    def __init__(self, model: type[Job], pk: int, worker: str):
        self.model, self.pk, self.worker = model, pk, worker[:255]
        self.every = max(0.5, settings.JOB_HEARTBEAT_STALE_SECONDS / 3)
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._beat, name=f"heartbeat-{model.__name__}-{pk}", daemon=True)

    def __enter__(self) -> Heartbeat:
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._stop.set()
        self._thread.join()

    def _beat(self) -> None:
        try:
            while not self._stop.wait(self.every):
                try:
                    self.model.objects.filter(pk=self.pk, status=JobStatus.RUNNING, worker=self.worker).update(
                        heartbeat_at=timezone.now())
                except DatabaseError:
                    log.warning("could not beat %s %s", self.model.__name__, self.pk, exc_info=True)
                    db_connection.close()  # a broken connection is opened anew at the next beat
        finally:
            db_connection.close()


def recheck_seconds() -> float:
    """How long a delivery of a job another worker runs waits before looking again: within the visibility
    timeout (a task held longer is handed out once more) and the heartbeat's staleness."""
    visibility = settings.CELERY_BROKER_TRANSPORT_OPTIONS.get("visibility_timeout", 3600)
    return max(1.0, min(visibility, settings.JOB_HEARTBEAT_STALE_SECONDS) / 2)


def route(name: str, args, kwargs, options, task=None, **kw) -> dict | None:
    """Celery's router (settings.CELERY_TASK_ROUTES): each task to the queue `task` named."""
    return {"queue": _queue_of[name]} if name in _queue_of else None


def send(celery_task, *args) -> None:
    """celery_task.apply_async(args), or QueueUnavailable when the broker cannot take it."""
    try:
        celery_task.apply_async(args=args, retry=False)
    except (OperationalError, RedisConnectionError, RedisTimeoutError, OSError) as exc:
        log.warning("could not queue %s%r: %r", celery_task.name, args, exc)
        raise QueueUnavailable(UNAVAILABLE) from exc


def enqueue(job: Job, celery_task) -> Job:
    """Hand the job to a worker once its row is committed, so that the worker can read it; with the queue away,
    the row fails saying so."""

    def send_it() -> None:
        try:
            send(celery_task, job.pk)
        except QueueUnavailable as exc:
            type(job).objects.filter(pk=job.pk, status=JobStatus.QUEUED).update(
                status=JobStatus.FAILED, message=str(exc), finished_at=timezone.now())
            job.status, job.message = JobStatus.FAILED, str(exc)

    transaction.on_commit(send_it)
    return job


def send_once(key: str, seconds: int, celery_task, *args) -> bool:
    """Send the task unless one sent under `key` is still under way (the work calls `done(key)` when it ends;
    after `seconds` a lost one is sent again). False when the queue is unavailable: the caller does the work
    itself. With tasks run in-process the work is done on return."""
    # add() is false when the key exists, and also when the cache is away: only a key seen set means "running".
    if not cache.add(key, True, timeout=seconds) and cache.get(key):
        return True
    try:
        send(celery_task, *args)
    except QueueUnavailable:
        cache.delete(key)
        return False
    return True


def kept_or_sent(find: Callable[[], object | None], key: str, seconds: int, celery_task, *args,
                 here: Callable[[], object | None]):
    """Figures a worker computes and keeps: what `find` reads as kept; else the task is sent once under `key`
    (`send_once`) and `find` is read again, since tasks run in-process (the zero-set-up default, tests) have kept
    them on return; with the queue away, `here()` computes them in this process. None while a worker works."""
    found = find()
    if found is not None:
        return found
    if not send_once(key, seconds, celery_task, *args):
        return here()
    return find()


def under_way(key: str) -> bool:
    return bool(cache.get(key))


def done(key: str) -> None:
    cache.delete(key)


def start(job: Job, **fields) -> None:
    """The job is running, from now (or from when it first started, if it is taken again): beating, not
    finished; `fields` saved with it."""
    now = timezone.now()
    job.status, job.finished_at, job.heartbeat_at = JobStatus.RUNNING, None, now
    job.started_at = job.started_at or now
    for name, value in fields.items():
        setattr(job, name, value)
    job.save(update_fields=["status", "started_at", "finished_at", "heartbeat_at", *fields])


def beat(job: Job, message: str = "", **fields) -> None:
    """A heartbeat, with what the job is doing (waiting for a rate limit, say) and the counts it has reached.
    Written by UPDATE: a job's other fields may be held by its own transaction."""
    job.heartbeat_at = timezone.now()
    if message:
        fields["message"] = message
    for name, value in fields.items():
        setattr(job, name, value)
    type(job).objects.filter(pk=job.pk).update(heartbeat_at=job.heartbeat_at, **fields)


def finish(job: Job, status: str, message: str = "", fields: tuple[str, ...] = ()) -> None:
    """The job ended: its outcome, what it says, and the counts it holds in `fields`."""
    job.status, job.message, job.finished_at = status, message, timezone.now()
    job.save(update_fields=["status", "message", "finished_at", *fields])
    tell_owner(job)


def stale(model: type[Job], stale_after: float | None = None):
    """Running jobs of this kind whose heartbeat stopped JOB_HEARTBEAT_STALE_SECONDS ago (their worker was
    stopped or killed)."""
    seconds = settings.JOB_HEARTBEAT_STALE_SECONDS if stale_after is None else stale_after
    cutoff = timezone.now() - timedelta(seconds=seconds)
    return model.objects.filter(status=JobStatus.RUNNING).filter(
        Q(heartbeat_at__lt=cutoff) | Q(heartbeat_at__isnull=True, started_at__lt=cutoff))


def interrupt_stale(model: type[Job], kept: Callable[[Job], tuple[str, dict]],
                    stale_after: float | None = None) -> int:
    """Mark stale jobs of this kind failed, each saying when it last beat and what of its work is kept and what
    to do: `kept(job)` gives those words and the fields to write with them (counts no longer true). Guarded by
    the status, so that a job that finished meanwhile keeps its outcome. The number marked."""
    marked = 0
    for job in stale(model, stale_after):
        last = job.heartbeat_at or job.started_at
        said, fields = kept(job)
        now = timezone.now()
        if model.objects.filter(pk=job.pk, status=JobStatus.RUNNING).update(
                status=JobStatus.FAILED, finished_at=now, **fields,
                message=f"{INTERRUPTED}no heartbeat since {last:%Y-%m-%d %H:%M:%S} UTC (its worker was stopped or "
                        f"killed). {said}"):
            marked += 1
            job.status, job.finished_at = JobStatus.FAILED, now
            tell_owner(job, always=True)
    return marked
