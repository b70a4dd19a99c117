"""The open loop of annotators against the balancer: each reads for a random time between labels (exponential,
mean THINK seconds), so that requests keep arriving whatever the servers do, and retries what failed.

A client retries a failed request (an error answer, or a connection that broke) every RETRY_EVERY seconds until
it succeeds, for at most GIVE_UP seconds, as a browser's page does; a label posted twice is revised to itself,
so a retry after a lost answer stores nothing twice. Every attempt is recorded with its start and end, so that a
test can tell the failures before a fault was noticed from those after it.
"""
from __future__ import annotations

import http.client
import json
import random
import secrets
import threading
import time
from dataclasses import dataclass, field

THINK = 5.0
RETRY_EVERY = 0.25
GIVE_UP = 60.0


@dataclass
class Attempt:
    started: float
    ended: float
    what: str  # "next" or "label"
    status: int  # 0: the connection failed


@dataclass
class Annotator:
    user_id: int
    session_key: str
    saved: dict[int, int] = field(default_factory=dict)  # report → the theme its label was saved with
    attempts: list[Attempt] = field(default_factory=list)
    round_trips: list[float] = field(default_factory=list)
    gave_up: str = ""


class Load:
    """`annotators` labeling study `study_id` through 127.0.0.1:`port` with themes (id, type id) picked by a
    seeded draw, from start() until stop()."""

    def __init__(self, port: int, host_header: str, study_id: int, annotators: list[Annotator],
                 themes: list[tuple[int, int]], seed: int = 7):
        self.port, self.host_header, self.study_id = port, host_header, study_id
        self.annotators, self.themes, self.seed = annotators, themes, seed
        self.stopping = threading.Event()
        self.threads: list[threading.Thread] = []
        self.started = 0.0

    def start(self) -> None:
        self.started = time.monotonic()
        self.threads = [threading.Thread(target=self._annotate, args=(a, n), daemon=True)
                        for n, a in enumerate(self.annotators)]
        for thread in self.threads:
            thread.start()

    def stop(self) -> None:
        self.stopping.set()
        for thread in self.threads:
            thread.join(timeout=GIVE_UP + 30)

    def attempts(self) -> list[Attempt]:
        return sorted((a for person in self.annotators for a in person.attempts), key=lambda a: a.started)

    def _annotate(self, person: Annotator, n: int) -> None:
        rng = random.Random(self.seed * 100_003 + n)
        csrf = secrets.token_hex(16)
        headers = {"Host": self.host_header, "Cookie": f"sessionid={person.session_key}; csrftoken={csrf}",
                   "X-CSRFToken": csrf, "Referer": f"http://{self.host_header}/", "Accept": "application/json"}
        connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=30)

        def call(what: str, method: str, path: str, body: dict | None = None):
            """The answer's status and JSON, retried until it is not an error; None if it never was."""
            payload = json.dumps(body).encode() if body is not None else None
            sent = {**headers, "Content-Type": "application/json"} if body is not None else headers
            deadline = time.monotonic() + GIVE_UP
            nonlocal connection
            while True:
                began = time.monotonic()
                try:
                    connection.request(method, path, body=payload, headers=sent)
                    response = connection.getresponse()
                    data = response.read()
                    status = response.status
                except (OSError, http.client.HTTPException):
                    connection.close()
                    connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=30)
                    status, data = 0, b""
                person.attempts.append(Attempt(began, time.monotonic(), what, status))
                if 0 < status < 500:
                    return status, (json.loads(data) if data else None)
                if time.monotonic() > deadline:
                    person.gave_up = f"{what}: {status} for {GIVE_UP:.0f} s"
                    return None
                time.sleep(RETRY_EVERY)

        time.sleep(rng.expovariate(1 / THINK))  # arrivals spread out from the start
        while not self.stopping.is_set():
            began = time.monotonic()
            answer = call("next", "GET", f"/api/studies/{self.study_id}/queue/next/")
            if answer is None:
                return
            status, data = answer
            if status == 204:
                return  # queue done
            if status != 200:
                person.gave_up = f"next: {status} {str(data)[:200]}"
                return
            report = data["report"]["id"]
            theme, type_ = rng.choice(self.themes)
            answer = call("label", "POST", f"/api/studies/{self.study_id}/labels/",
                          {"issue": report, "type": type_, "theme": theme})
            if answer is None:
                return
            if answer[0] != 201:
                person.gave_up = f"label: {answer[0]} {str(answer[1])[:200]}"
                return
            person.saved[report] = theme
            person.round_trips.append(time.monotonic() - began)
            self.stopping.wait(rng.expovariate(1 / THINK))
        connection.close()
