"""Tasks run apart (concord.child_processes): in a child process of the worker, kept a while and then ended, so that an
idle worker gives back the statistics stack. Real child processes; the worker's side is the module
itself, told it runs inside a worker."""
from __future__ import annotations

import os
import signal
import time

import pytest

from concord import child_processes


@pytest.fixture
def in_worker(monkeypatch, settings):
    settings.TASKS_APART_IDLE = 60
    monkeypatch.setattr(child_processes, "_in_worker", lambda: True)
    yield
    for child in list(child_processes._idle):
        child_processes._idle.remove(child)
        child.end()


def pid_and(value):
    return os.getpid(), value


def fail_with(message):
    raise ValueError(message)


class NeedsTwo(Exception):
    def __init__(self, a, b):
        super().__init__(f"{a} and {b}")


def fail_unpicklably():
    raise NeedsTwo(1, 2)


def hang(pid_file):
    with open(pid_file, "w") as file:
        file.write(str(os.getpid()))
    time.sleep(60)


def test_outside_a_worker_the_function_runs_here():
    assert child_processes.call(pid_and, 3) == (os.getpid(), 3)


def test_inside_a_worker_it_runs_in_a_child_kept_for_the_next_task(in_worker):
    pid, value = child_processes.call(pid_and, {"figures": [1.5, None]})
    assert pid != os.getpid() and value == {"figures": [1.5, None]}
    assert child_processes.children() == 1
    again, _ = child_processes.call(pid_and, 0)
    assert again == pid  # the same child, still warm


def test_the_childs_exception_is_raised_as_the_tasks_own(in_worker):
    with pytest.raises(ValueError, match="no such round") as raised:
        child_processes.call(fail_with, "no such round")
    assert "in the child process" in "".join(raised.value.__notes__)
    # The child survives its task's failure.
    assert child_processes.children() == 1


def test_an_exception_that_cannot_come_back_is_named_not_lost(in_worker):
    with pytest.raises(RuntimeError, match="NeedsTwo"):
        child_processes.call(fail_unpicklably)


def test_a_child_killed_mid_task_fails_the_task_and_is_replaced(in_worker, tmp_path):
    import threading

    pid_file = tmp_path / "pid"

    def kill_the_child():
        deadline = time.monotonic() + 60
        while not pid_file.exists() or not pid_file.read_text():
            if time.monotonic() > deadline:
                return
            time.sleep(0.1)
        os.kill(int(pid_file.read_text()), signal.SIGKILL)

    threading.Thread(target=kill_the_child, daemon=True).start()
    with pytest.raises(child_processes.ChildLost, match="hang ended before it finished"):
        child_processes.call(hang, str(pid_file))
    assert child_processes.children() == 0
    pid, _ = child_processes.call(pid_and, 1)
    assert pid != os.getpid()


def test_an_idle_child_ends_after_the_idle_time(in_worker, settings):
    settings.TASKS_APART_IDLE = 1
    pid, _ = child_processes.call(pid_and, 1)
    deadline = time.monotonic() + 30
    while not _gone(pid) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert child_processes.children() == 0 and _gone(pid)


def _gone(pid: int) -> bool:
    try:
        return open(f"/proc/{pid}/stat").read().split(")")[1].split()[0] == "Z"  # ended, not yet reaped
    except FileNotFoundError:
        return True
