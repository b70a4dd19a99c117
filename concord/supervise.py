"""Keep a command running: `python -m concord.supervise COMMAND…` starts it, and starts it again whenever it exits
with an error, waiting 1, 2, 4 … up to 30 s between tries (back to 1 s after a minute's good run). It ends when the
command exits cleanly, or with it when told to stop (SIGINT, SIGTERM: passed on once).

Why: a Celery worker whose Redis drops while a task runs can exit with "Unrecoverable error" (a kombu fault on
reconnecting), and every later job would then wait for ever. `make run` and `make worker` start their worker under
this; Compose (`restart:`) and systemd (`Restart=on-failure`) do the same for a lab's server.

The command runs in a process group of its own, so that Ctrl+C in a terminal reaches it once, through this
process: a second SIGINT would make a Celery worker abandon its running tasks. It is also told to stop if this
process dies, so that no worker outlives its keeper.
"""
from __future__ import annotations

import ctypes
import signal
import subprocess
import sys
import time

PR_SET_PDEATHSIG = 1
LONGEST_WAIT = 30
GOOD_RUN = 60


def _stop_with_parent() -> None:
    try:
        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGTERM)
    except (AttributeError, OSError):  # not Linux: the command may outlive a killed keeper
        pass


def keep_running(command: list[str]) -> int:
    stopping: list[int] = []
    child: subprocess.Popen | None = None

    def stop(signum, frame) -> None:
        stopping.append(signum)
        if child is not None and child.poll() is None:
            child.send_signal(signum)

    signal.signal(signal.SIGINT, stop)
    signal.signal(signal.SIGTERM, stop)
    wait = 1
    while True:
        started = time.monotonic()
        child = subprocess.Popen(command, process_group=0, preexec_fn=_stop_with_parent)
        status = child.wait()
        if stopping or status == 0:
            return status
        if time.monotonic() - started > GOOD_RUN:
            wait = 1
        print(f"supervise: {command[0]} exited with status {status}; starting it again in {wait} s",
              file=sys.stderr, flush=True)
        deadline = time.monotonic() + wait
        while not stopping and time.monotonic() < deadline:
            time.sleep(0.1)
        if stopping:
            return status
        wait = min(wait * 2, LONGEST_WAIT)


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit("usage: python -m concord.supervise COMMAND [ARGUMENT …]")
    sys.exit(keep_running(sys.argv[1:]))
