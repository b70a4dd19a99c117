"""Open-loop labeling load for `make bench-label`: many annotators who read between labels.

A closed loop (every client sends its next request the moment the last one returns) measures how fast the
server can be driven, not what people see. Here each of ANNOTATORS annotators waits a random reading time
(exponential, mean THINK seconds) after each saved label, so requests arrive at about ANNOTATORS / THINK per
second whatever the server does, as in a real session. Reported: latency percentiles of a round trip (next
report, then save its label), the rate achieved, and whether every label was stored once; then the rate is
raised step by step until p95 passes 500 ms, the saturation point.
"""
from __future__ import annotations

import random
import secrets
import threading
import time

from common import session_key

ANNOTATORS = 200
THINK = 5.0
QUEUE_LENGTH = 150


def add_annotators(study, count: int = ANNOTATORS, prefix: str = "open") -> list:
    """`count` more annotators with queues in the open round; sessions made directly (no password hashing)."""
    from django.contrib.auth import get_user_model

    from annotation.models import Membership
    from annotation.services.queues import fill_queues

    User = get_user_model()
    prefix += secrets.token_hex(3)  # a run on a reused study (--reuse) adds people of its own
    users = User.objects.bulk_create([User(username=f"{prefix}-{n:03d}") for n in range(count)])
    Membership.objects.bulk_create([Membership(study=study, user=u) for u in users])
    round_ = study.rounds.get()
    issue_ids = list(study.issues.order_by("pk").values_list("pk", flat=True))
    rng = random.Random(7)
    fill_queues(round_, {u.pk: rng.sample(issue_ids, QUEUE_LENGTH) for u in users})
    sessions = []
    for user in users:
        sessions.append((user, session_key(user)))
    return sessions


class Browser:
    """One annotator's connection: kept alive, and opened again when the server has closed an idle one (as
    gunicorn does after its keep-alive time, and browsers silently handle)."""

    def __init__(self, port: int, session_key: str):
        import http.client

        csrf = secrets.token_hex(16)
        self.headers = {"Cookie": f"sessionid={session_key}; csrftoken={csrf}", "X-CSRFToken": csrf,
                        "Referer": "http://127.0.0.1/", "Accept": "application/json"}
        self.connection = http.client.HTTPConnection("127.0.0.1", port, timeout=60)

    def call(self, method: str, path: str, body: dict | None = None):
        import http.client
        import json

        headers = dict(self.headers)
        payload = None
        if body is not None:
            payload = json.dumps(body).encode()
            headers["Content-Type"] = "application/json"
        for attempt in (1, 2):
            try:
                self.connection.request(method, path, body=payload, headers=headers)
                response = self.connection.getresponse()
                data = response.read()
                if response.status >= 500 or not data:
                    return response.status, None
                return response.status, json.loads(data)
            except (http.client.RemoteDisconnected, ConnectionResetError, BrokenPipeError):
                self.connection.close()
                if attempt == 2:
                    raise


def run(study, sessions, themes, server, rate_scale: float, seconds: float) -> dict:
    """Every annotator labels for `seconds`, reading THINK / rate_scale seconds on average between labels."""
    theme_id, type_id = themes[1]
    times: list[float] = []
    submitted: list[tuple[int, int]] = []
    errors: list[str] = []
    lock = threading.Lock()
    stop_at = time.perf_counter() + seconds
    clients = [(user, Browser(server.port, key)) for user, key in sessions]

    def annotate(user, client, seed: int) -> None:
        rng = random.Random(seed)
        time.sleep(rng.expovariate(rate_scale / THINK))  # arrivals spread out from the start
        while time.perf_counter() < stop_at:
            started = time.perf_counter()
            try:
                status, data = client.call("GET", f"/api/studies/{study.pk}/queue/next/")
                if status == 204:
                    return  # queue done
                if status != 200 or not data:
                    with lock:
                        errors.append(f"next: {status}")
                    time.sleep(rng.expovariate(rate_scale / THINK))
                    continue
                issue_id = data["report"]["id"]
                status, saved = client.call("POST", f"/api/studies/{study.pk}/labels/",
                                            {"issue": issue_id, "type": type_id, "theme": theme_id})
            except OSError as exc:
                with lock:
                    errors.append(repr(exc))
                return
            elapsed = time.perf_counter() - started
            with lock:
                times.append(elapsed)
                if status == 201:
                    submitted.append((user.pk, issue_id))
                else:
                    errors.append(f"{status} {str(saved)[:120]}")
            time.sleep(max(0.0, min(rng.expovariate(rate_scale / THINK), stop_at - time.perf_counter())))

    threads = [threading.Thread(target=annotate, args=(u, c, n)) for n, (u, c) in enumerate(clients)]
    began, cpu_before, client_before = time.perf_counter(), server.cpu_seconds(), time.process_time()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    cpu, client_cpu = server.cpu_seconds() - cpu_before, time.process_time() - client_before
    # The rate over the window requests were sent in (the last answers may come a little after it).
    wall = max(seconds, time.perf_counter() - began) if not times else seconds
    times.sort()

    def pct(share: float) -> float:
        return times[min(len(times) - 1, int(share * len(times)))] * 1000 if times else float("nan")

    return {"offered": len(sessions) * rate_scale / THINK, "achieved": len(times) / wall, "n": len(times),
            "p50": pct(0.50), "p95": pct(0.95), "p99": pct(0.99), "submitted": submitted, "errors": errors,
            "cpu_ms": 1000 * cpu / len(times) if times else float("nan"),
            "client_cpu_ms": 1000 * client_cpu / len(times) if times else float("nan")}


def measure(study, themes, server, seconds: float = 60.0, step_seconds: float = 20.0, prefix: str = "open") -> None:
    from annotation.models import Label

    sessions = add_annotators(study, prefix=prefix)
    before = Label.objects.filter(study=study).count()
    result = run(study, sessions, themes, server, 1.0, seconds)
    stored = Label.objects.filter(study=study).count() - before
    distinct = len(set(result["submitted"]))
    print(f"open loop              {ANNOTATORS} annotators, one label every {THINK:.0f} s each on average "
          f"(offered {result['offered']:.0f} round trips/s) for {seconds:.0f} s")
    print(f"  achieved             {result['achieved']:.1f} round trips/s, {result['n']} round trips")
    print(f"  round trip           p50 {result['p50']:.1f} ms, p95 {result['p95']:.1f} ms, p99 {result['p99']:.1f} ms")
    # The clients share the two cores: what they cost says how much of the machine the server had.
    print(f"  CPU per round trip   server {result['cpu_ms']:.1f} ms (gunicorn's processes), "
          f"clients {result['client_cpu_ms']:.1f} ms (this process)")
    print(f"  labels               {len(result['submitted'])} saved answers, {distinct} distinct, {stored} stored, "
          f"{len(result['errors'])} errors")
    assert not result["errors"], result["errors"][:3]
    assert stored == distinct == len(result["submitted"]), "a label was lost or stored twice"
    # The saturation point: the highest rate whose p95 stays under 500 ms, stepping up from the base rate if it
    # holds there, else down.
    scales = (1.5, 2.0, 3.0, 4.0, 6.0, 8.0) if result["p95"] <= 500 else (0.75, 0.5, 0.35, 0.25)
    held = result if result["p95"] <= 500 else None
    for scale in scales:
        step = run(study, sessions, themes, server, scale, step_seconds)
        errors = f", errors {len(step['errors'])}" if step["errors"] else ""
        print(f"  offered {step['offered']:5.0f}/s       achieved {step['achieved']:5.1f}/s, p50 {step['p50']:.0f} ms, "
              f"p95 {step['p95']:.0f} ms, server CPU {step['cpu_ms']:.0f} ms/round trip{errors}")
        if (step["p95"] <= 500) == (scales[0] < 1):
            held = step if step["p95"] <= 500 else held
            break
        held = step if step["p95"] <= 500 else held
    if held is None:
        print("  saturation           p95 is over 500 ms at every rate tried")
    else:
        print(f"  saturation           p95 stays under 500 ms up to about {held['achieved']:.0f} round trips/s "
              f"(offered {held['offered']:.0f}/s, p95 {held['p95']:.0f} ms)")
