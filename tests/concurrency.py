"""What tests of things that happen at once, or that take a while, share."""
from __future__ import annotations

import threading
import time

import pytest
from django.db import connections


def at_once(*calls) -> list:
    """Run the calls in threads released together; what each raised (None when it succeeded)."""
    gate = threading.Barrier(len(calls))
    outcomes: list = [None] * len(calls)

    def run(i, call):
        try:
            gate.wait()
            call()
        except Exception as exc:  # noqa: BLE001 - returned and asserted on by the tests
            outcomes[i] = exc
        finally:
            connections.close_all()

    threads = [threading.Thread(target=run, args=(i, c)) for i, c in enumerate(calls)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return outcomes


def wait_for(condition, seconds: float, what: str):
    """What `condition()` returns once it is true, polled until `seconds` have passed; then the test fails."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if value := condition():
            return value
        time.sleep(0.05)
    pytest.fail(f"timed out after {seconds:.0f} s waiting for {what}")
