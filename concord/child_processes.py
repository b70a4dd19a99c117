"""Running a task's heavy part in a child process, which ends once it has had nothing to do for a while.

Agreement figures and machine raters load scipy, statsmodels, pandas and scikit-learn (about 120 MiB) and leave
large numpy buffers behind. A worker that ran them itself would hold all of it for good, though it is idle most
of the day; a child process gives every page back when it ends. A child is kept `TASKS_APART_IDLE` seconds
after its last task, so that figures asked for together (a lead moving between levels, a decision's
measurements) pay for starting Django and importing the stack once.

The child is a plain subprocess talking over a pipe (multiprocessing's framing and pickling), not a
multiprocessing pool: a pool would start, and keep for good, a resource-tracker process of its own.

Only inside a Celery worker: a task run in-process (the zero-set-up default, tests) or called by a web request
whose queue is away runs where it is.
"""
from __future__ import annotations

import os
import pickle
import signal
import subprocess
import sys
import threading
import time
import traceback
from collections.abc import Callable
from multiprocessing.connection import Connection

from celery import current_task
from django.conf import settings

_lock = threading.Lock()
_idle: list[_Child] = []


class ChildLost(RuntimeError):
    """The child process ended in the middle of a task (killed, out of memory)."""


def call(work: Callable, *args):
    """`work(*args)`, in a child process when inside a worker: returns what it returns and raises what it raises
    (both must pickle; an exception that does not comes back as a RuntimeError with its text). `work` is a
    module-level function: the child is sent a reference to it, as pickle sends functions."""
    if not _in_worker():
        return work(*args)
    child = _take()
    try:
        ok, value = child.call(work, args)
    except (EOFError, OSError) as exc:
        child.end()
        raise ChildLost(f"the process running {_name(work)} ended before it finished") from exc
    except BaseException:  # an answer that would not unpickle, the worker stopped meanwhile: not reused
        child.end()
        raise
    _give_back(child)
    if ok:
        return value
    raise value


def children() -> int:
    """How many idle children are kept (for tests and the memory benchmark)."""
    with _lock:
        return len(_idle)


def _in_worker() -> bool:
    if not settings.TASKS_APART:
        return False
    task = current_task._get_current_object()  # a proxy, never None itself
    return task is not None and not task.request.called_directly and not task.request.is_eager


class _Child:
    def __init__(self) -> None:
        to_child, from_parent = os.pipe()
        to_parent, from_child = os.pipe()
        # A new interpreter, not a fork: the worker has threads and open connections a fork would copy mid-use.
        self.process = subprocess.Popen(
            [sys.executable, "-c", f"from concord.child_processes import serve; serve({to_child}, {from_child})"],
            pass_fds=(to_child, from_child), cwd=settings.BASE_DIR)
        os.close(to_child)
        os.close(from_child)
        self.outbox = Connection(from_parent, readable=False)
        self.inbox = Connection(to_parent, writable=False)
        self.since = time.monotonic()

    def call(self, work: Callable, args: tuple):
        self.outbox.send((work, args))
        return self.inbox.recv()

    def end(self) -> None:
        # The child ends when it reads the end of its pipe; one that does not is killed.
        self.outbox.close()
        self.inbox.close()
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()


def _take() -> _Child:
    with _lock:
        while _idle:
            child = _idle.pop()
            if child.process.poll() is None:
                return child
            child.end()  # ended while idle (killed, out of memory)
    return _Child()


def _give_back(child: _Child) -> None:
    child.since = time.monotonic()
    with _lock:
        _idle.append(child)
    timer = threading.Timer(settings.TASKS_APART_IDLE, _end_idle)
    timer.daemon = True
    timer.start()


def _end_idle() -> None:
    ending = []
    with _lock:
        for child in list(_idle):
            if time.monotonic() - child.since >= settings.TASKS_APART_IDLE:
                _idle.remove(child)
                ending.append(child)
    for child in ending:
        child.end()


def serve(read_fd: int, write_fd: int) -> None:
    """The child: runs the tasks it is sent, one at a time, until the worker closes the pipe."""
    _die_with_parent()
    import django

    django.setup()
    from django.db import close_old_connections

    inbox, outbox = Connection(read_fd, writable=False), Connection(write_fd, readable=False)
    while True:
        try:
            work, args = inbox.recv()
        except EOFError:
            return
        close_old_connections()
        try:
            answer = (True, work(*args))
        except Exception as exc:  # handed to the worker, which raises it as the task's own
            exc.add_note("in the child process:\n" + traceback.format_exc())
            answer = (False, exc)
        finally:
            close_old_connections()
        outbox.send_bytes(_packed(_name(work), answer))


def _name(work: Callable) -> str:
    return f"{work.__module__}.{work.__qualname__}"


def _packed(path: str, answer: tuple) -> bytes:
    try:
        packed = pickle.dumps(answer)
        if not answer[0]:
            pickle.loads(packed)  # an exception class may pickle but not unpickle (required arguments)
        return packed
    except Exception as exc:
        text = "".join(getattr(answer[1], "__notes__", [])) if not answer[0] else ""
        return pickle.dumps((False, RuntimeError(
            f"{path} returned or raised what cannot be sent back ({exc}): {answer[1]!r}\n{text}")))


def _die_with_parent() -> None:
    # The child goes with the worker, even one killed outright: a late-acknowledged task given back to the
    # queue must not also go on running here. (Linux; elsewhere the child ends when it reads its pipe's end.)
    if sys.platform.startswith("linux"):
        import ctypes

        ctypes.CDLL(None).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
        if os.getppid() == 1:  # the worker died before the line above
            os._exit(1)
