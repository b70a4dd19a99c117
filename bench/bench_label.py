"""Benchmark: "next report" and "submit label" on a study of 40,000 reports that 7 annotators have labeled,
then 7 annotators labeling at once against the app under gunicorn.

    python bench/bench_label.py FILE.jsonl [--requests 500] [--round-trips 200] [--database-url …]

Builds a fresh PostgreSQL database: the corpus as one source with every report's built-in summary, the default
codebook, a study whose lead and 6 annotators (7 labelers) have each labeled every report but the last TODO ones
(about 276,000 labels), their queues marked to match. Then:

1. Inside Django (the test client: middleware, views, templates, database; no network), times the labeling
   page ("next report") and the htmx label submission, and the same two through the REST API, counting the
   SQL queries of each. Prints p50, p95 and the query counts.
2. Starts gunicorn on 127.0.0.1 (gunicorn.conf.py, as shipped); one annotator alone, then 7 threads, one per
   labeler, each logged in with its own session and doing next + submit round trips through the API. Prints
   round-trip p50/p95, round trips per second, the floor — the server's CPU time per round trip (gunicorn's
   processes' CPU over the run ÷ round trips), which does not depend on how busy the clients keep the two
   cores — and the latencies as multiples of it; checks that every submitted label is stored exactly once.
3. The open loop (bench/open_loop.py): 200 more annotators, each reading 5 s on average between labels
   (about 40 round trips/s offered), for --open-loop seconds; then higher rates until p95 passes 500 ms.
4. With --pgbouncer, the open loop again with gunicorn reaching PostgreSQL through Debian's pgbouncer in
   transaction mode (apt-get install pgbouncer).
"""
from __future__ import annotations

import argparse
import http.client
import json
import os
import re
import socket
import statistics
import subprocess
import sys
import threading
import time
from contextlib import contextmanager
from pathlib import Path

import instructions
import open_loop
from common import DEFAULT_URL, ROOT, setup_django

TODO = 1300
LABELERS = 7


def _percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(share * (len(ordered) - 1)))]


def _summary(name: str, times: list[float], queries: list[int] | None = None) -> str:
    line = f"{name:<22} p50 {1000 * statistics.median(times):6.1f} ms, p95 {1000 * _percentile(times, 0.95):6.1f} ms"
    if queries is not None:
        line += f", queries {min(queries)}–{max(queries)}"
    return line + f" ({len(times)} requests)"


def build(path: str):
    from ingest.models import Source
    from ingest.services.files import import_file

    source = Source.objects.create(full_name="bench-org/bench-repo", display_name="Bench")
    import_file(path, source, file_format="jsonl")
    return make_study(source)


def make_study(source, summaries: bool = True):
    """The bench study over every issue of the database: 7 labelers, each with every report but the last TODO
    labeled; every report summarised unless `summaries` is off."""
    from django.contrib.auth import get_user_model
    from django.db import connection, transaction
    from django.utils import timezone

    from annotation.models import Assignment, Label, Queue, Study
    from annotation.services.studies import create_study
    from ingest.models import Issue
    from taxonomy.models import Category
    from taxonomy.services import load_codebook

    codebook = load_codebook()
    User = get_user_model()
    lead = User.objects.create_user("lead", password="bench-pw-lead")
    people = [User.objects.create_user(f"ann{i}", password=f"bench-pw-ann{i}") for i in range(1, LABELERS)]
    study = create_study(name="Bench study", codebook=codebook, issues=Issue.objects.all(), lead=lead,
                         annotators=people)
    round_ = study.rounds.get()
    themes = list(Category.objects.filter(level=Category.Level.THEME).values_list("pk", "parent_id"))
    issue_ids = list(Issue.objects.order_by("created_at", "pk").values_list("pk", flat=True))
    labeled = issue_ids[:-TODO]
    now = timezone.now()
    labelers = [lead, *people]
    with transaction.atomic(), connection.cursor() as cursor:
        with cursor.cursor.copy(
            f"COPY {Label._meta.db_table} (study_id, round_id, issue_id, annotator_id, is_relevant, type_id, "
            "theme_id, note, created_at, updated_at) FROM STDIN"
        ) as copy:
            for person in labelers:
                for n, issue_id in enumerate(labeled):
                    theme_id, type_id = themes[(n * 7 + person.pk) % len(themes)]
                    copy.write_row((study.pk, round_.pk, issue_id, person.pk, True, type_id, theme_id, "", now, now))
        # The queues say what the labels say: done where labeled.
        cursor.execute(
            f"UPDATE {Assignment._meta.db_table} a SET done = true FROM {Label._meta.db_table} l, "
            f"{Queue._meta.db_table} q WHERE a.queue_id = q.id AND q.round_id = %s AND l.round_id = q.round_id "
            "AND l.annotator_id = q.annotator_id AND l.issue_id = a.issue_id", [round_.pk])
        Queue.objects.filter(round=round_).update(done=len(labeled))
    if summaries:
        _summarise(source)
    with connection.cursor() as cursor:
        cursor.execute("VACUUM ANALYZE") if connection.get_autocommit() else cursor.execute("ANALYZE")
    return Study.objects.get(pk=study.pk), labelers, themes


def _summarise(source) -> None:
    """Every report gets its built-in summary, as the method's step 5 gives every kept issue one before labeling
    (written with COPY: the batch's per-issue writes would take minutes here)."""
    from django.db import connection
    from django.utils import timezone

    from ingest.models import Summary
    from ingest.summaries import content_hash
    from ingest.summaries.extractive import ExtractiveSummariser

    summariser, now, made = ExtractiveSummariser(), timezone.now(), []
    for pk, title, body in source.issues.values_list("pk", "title", "body").iterator(chunk_size=2000):
        summary = summariser.summarise(title, body, set(), False)
        made.append((pk, summariser.name, summariser.model, summariser.prompt_version, content_hash(title, body),
                     summary.text, summary.verdict, summary.reason, Summary.Status.OK, "", now, now))
    with connection.cursor() as cursor, cursor.cursor.copy(
            f"COPY {Summary._meta.db_table} (issue_id, backend, model, prompt_version, content_hash, text, verdict, "
            "reason, status, error, created_at, updated_at) FROM STDIN") as copy:
        for row in made:
            copy.write_row(row)


def measure_in_process(study, annotator, themes, requests: int) -> dict[str, float]:
    """Prints each request's p50 and p95 and query count; returns the p95s in milliseconds."""
    from django.db import connection
    from django.test import Client
    from django.test.utils import CaptureQueriesContext
    from django.urls import reverse

    client = Client()
    # As a password login records it (force_login would pick django-axes, the first backend listed).
    client.force_login(annotator, backend="concord.auth.UserRowBackend")
    theme_id, type_id = themes[0]
    results = {name: ([], []) for name in ("page: next report", "page: submit label", "api: next report",
                                           "api: submit label")}

    def timed(name, call):
        connection.queries_log.clear()  # the log keeps 9,000 queries; counts are per request
        with CaptureQueriesContext(connection) as queries:
            started = time.perf_counter()
            response = call()
            results[name][0].append(time.perf_counter() - started)
        results[name][1].append(len(queries))
        assert response.status_code in (200, 201), (name, response.status_code, response.content[:300])
        return response

    queue_url = reverse("annotation:queue", args=[study.pk])
    next_url = reverse("api:queue_next", args=[study.pk])
    labels_url = reverse("api:label_list", args=[study.pk])
    client.get(queue_url)  # warm-up
    for _ in range(requests):
        html = timed("page: next report", lambda: client.get(queue_url)).content.decode()
        issue_id = int(html.split('data-issue="')[1].split('"')[0])
        url = reverse("annotation:label_submit", args=[study.pk, issue_id])
        timed("page: submit label", lambda url=url: client.post(url, {"type": type_id, "theme": theme_id},
                                                                headers={"HX-Request": "true"}))
        data = timed("api: next report", lambda: client.get(next_url)).json()
        body = {"issue": data["report"]["id"], "type": type_id, "theme": theme_id}
        timed("api: submit label", lambda body=body: client.post(labels_url, body, content_type="application/json"))
    for name, (times, queries) in results.items():
        print(_summary(name, times, queries))
    return {name: 1000 * _percentile(times, 0.95) for name, (times, _) in results.items()}


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Annotator:
    """One annotator's browser-like session: logged in once, then one kept-alive connection. Plain
    http.client, so that the 7 client threads (which share the machine with the server) cost little."""

    def __init__(self, host: str, port: int, username: str, password: str):
        import requests

        base = f"http://{host}:{port}"
        login = requests.Session()
        page = login.get(f"{base}/accounts/login/")
        token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page.text).group(1)
        response = login.post(f"{base}/accounts/login/", allow_redirects=False,
                              data={"username": username, "password": password, "csrfmiddlewaretoken": token},
                              headers={"Referer": f"{base}/accounts/login/"})
        assert response.status_code == 302, f"login of {username} failed"
        cookies = login.cookies.get_dict()
        self.headers = {
            "Cookie": "; ".join(f"{k}={v}" for k, v in cookies.items()),
            "X-CSRFToken": cookies["csrftoken"], "Referer": base + "/", "Accept": "application/json",
        }
        self.connection = http.client.HTTPConnection(host, port, timeout=30)

    def call(self, method: str, path: str, body: dict | None = None) -> tuple[int, dict | None]:
        headers = dict(self.headers)
        payload = None
        if body is not None:
            payload = json.dumps(body).encode()
            headers["Content-Type"] = "application/json"
        self.connection.request(method, path, body=payload, headers=headers)
        response = self.connection.getresponse()
        data = response.read()
        return response.status, (json.loads(data) if data else None)


def _wait_for_port(port: int) -> None:
    """Until something listens on 127.0.0.1:port (at most ten seconds)."""
    for _ in range(100):
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            return
        except OSError:
            time.sleep(0.1)


def _cpu_seconds(pid: int) -> float:
    """User + system CPU of a live process and of its children that have exited and been waited for."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return sum(int(value) for value in fields[11:15]) / os.sysconf("SC_CLK_TCK")


class Server:
    """A running gunicorn: its port, and the CPU its processes (master and workers) have used so far."""

    def __init__(self, process: subprocess.Popen, port: int):
        self.process, self.port = process, port

    def cpu_seconds(self) -> float:
        master = self.process.pid
        children = Path(f"/proc/{master}/task/{master}/children").read_text().split()
        total = _cpu_seconds(master)
        for pid in children:
            try:
                total += _cpu_seconds(int(pid))
            except FileNotFoundError:  # a worker restarted meanwhile; the master counts it once waited for
                pass
        return total


@contextmanager
def gunicorn(workers: int, threads: int, **env_extra):
    """The app under gunicorn on a free port, as the Docker image runs it (gunicorn.conf.py); yields a Server."""
    port = _free_port()
    env = {**os.environ, "ALLOWED_HOSTS": "127.0.0.1", "SECURE_SSL_REDIRECT": "0", "SECURE_COOKIES": "0",
           **env_extra}
    server = subprocess.Popen(
        [sys.executable, "-m", "gunicorn", "config.wsgi", "--config", "gunicorn.conf.py",
         "--bind", f"127.0.0.1:{port}", "--workers", str(workers), "--threads", str(threads), "--log-level", "warning"],
        cwd=ROOT, env=env)
    try:
        _wait_for_port(port)
        yield Server(server, port)
    finally:
        server.terminate()
        server.wait(timeout=30)


@contextmanager
def pgbouncer(database_url: str):
    """Debian's pgbouncer in transaction mode in front of the bench database; yields its DATABASE_URL."""
    import shutil
    import tempfile
    from urllib.parse import urlsplit

    binary = shutil.which("pgbouncer") or "/usr/sbin/pgbouncer"
    url = urlsplit(database_url)
    port = _free_port()
    with tempfile.TemporaryDirectory() as folder:
        ini = Path(folder) / "pgbouncer.ini"
        ini.write_text(
            f"[databases]\n{url.path.lstrip('/')} = host={url.hostname} port={url.port or 5432}\n"
            f"[pgbouncer]\nlisten_addr = 127.0.0.1\nlisten_port = {port}\nauth_type = trust\n"
            f"auth_file = {folder}/users.txt\npool_mode = transaction\nmax_client_conn = 1000\n"
            f"default_pool_size = 20\nunix_socket_dir =\nlogfile = {folder}/pgbouncer.log\n")
        (Path(folder) / "users.txt").write_text(f'"{url.username or "postgres"}" ""\n')
        # PgBouncer will not run as root; -u switches to the postgres user, who must read the folder.
        os.chmod(folder, 0o777)
        user = ["-u", "postgres"] if os.geteuid() == 0 else []
        process = subprocess.Popen([binary, *user, str(ini)], stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT)
        try:
            _wait_for_port(port)
            yield url._replace(netloc=f"{url.username or 'postgres'}@127.0.0.1:{port}").geturl()
        finally:
            process.terminate()
            process.wait(timeout=30)


def measure_concurrent(study, labelers, themes, round_trips: int, workers: int, threads: int) -> dict[str, float]:
    """Prints the round trips' times, throughput and server CPU; returns p50 and p95 in ms and the CPU."""
    from annotation.models import Label, Queue

    with gunicorn(workers, threads) as server:
        sessions = [Annotator("127.0.0.1", server.port, p.username,
                              "bench-pw-lead" if p.username == "lead" else f"bench-pw-{p.username}")
                    for p in labelers]
        labels_before = Label.objects.filter(study=study).count()
        done_before = {q.annotator_id: q.done for q in Queue.objects.filter(round__study=study)}
        times: list[list[float]] = [[] for _ in sessions]
        submitted: list[list[int]] = [[] for _ in sessions]
        errors: list[str] = []
        theme_id, type_id = themes[1]
        start_gate = threading.Barrier(len(sessions))

        def annotate(index: int) -> None:
            session = sessions[index]
            start_gate.wait()
            for _ in range(round_trips):
                started = time.perf_counter()
                _, data = session.call("GET", f"/api/studies/{study.pk}/queue/next/")
                issue_id = data["report"]["id"]
                status, saved = session.call("POST", f"/api/studies/{study.pk}/labels/",
                                             {"issue": issue_id, "type": type_id, "theme": theme_id})
                times[index].append(time.perf_counter() - started)
                if status != 201:
                    errors.append(f"{status} {str(saved)[:200]}")
                submitted[index].append(issue_id)

        pool = [threading.Thread(target=annotate, args=(i,)) for i in range(len(sessions))]
        started, cpu_before = time.perf_counter(), server.cpu_seconds()
        for thread in pool:
            thread.start()
        for thread in pool:
            thread.join()
        elapsed, cpu = time.perf_counter() - started, server.cpu_seconds() - cpu_before
    all_times = [t for per in times for t in per]
    total = len(all_times)
    cpu_ms = 1000 * cpu / total
    p95 = 1000 * _percentile(all_times, 0.95)
    who = "one annotator" if len(sessions) == 1 else f"{len(sessions)} annotators at once"
    print(f"gunicorn               {workers} workers × {threads} threads, {who}, over HTTP")
    print(_summary("round trip (api)", all_times).replace("requests", "round trips"))
    print(f"throughput             {total / elapsed:.1f} round trips/s ({total} in {elapsed:.1f} s)")
    # The floor, independent of how busy the clients keep the two cores: what one round trip costs the server.
    print(f"server CPU (floor)     {cpu_ms:.1f} ms per round trip (gunicorn's processes; target ≤ 10 ms); "
          f"p50 {1000 * statistics.median(all_times) / cpu_ms:.1f}×, p95 {p95 / cpu_ms:.1f}× the floor")
    stored = Label.objects.filter(study=study).count() - labels_before
    distinct = sum(len(set(s)) for s in submitted)
    # Each queue counted each of its reports once.
    # The labelers' queues (a reused study also holds the open loop's annotators).
    done = {q.annotator_id: q.done for q in Queue.objects.filter(round__study=study, annotator__in=labelers)}
    expected = {p.pk: done_before[p.pk] + len(set(submitted[i])) for i, p in enumerate(labelers)}
    print(f"labels                 {total} submitted, {distinct} distinct reports, {stored} new labels stored, "
          f"{len(errors)} errors")
    assert not errors, errors[:3]
    assert stored == distinct == total, "a label was lost or stored twice"
    assert done == expected, "a queue counted a report twice or not at all"
    return {"p50_ms": 1000 * statistics.median(all_times), "p95_ms": p95, "cpu_ms": cpu_ms}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("path")
    parser.add_argument("--requests", type=int, default=500)
    parser.add_argument("--round-trips", type=int, default=100, help="per annotator, under gunicorn")
    # As the Docker image runs it: two processes (one per core here) of four threads each.
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--threads", type=int, default=4)
    parser.add_argument("--database-url", default=os.environ.get("BENCH_DATABASE_URL", DEFAULT_URL))
    parser.add_argument("--reuse", action="store_true", help="keep the study a previous run built (for tuning)")
    parser.add_argument("--open-loop", type=float, default=60, help="seconds of the 200-annotator open loop (0: none)")
    parser.add_argument("--pgbouncer", action="store_true", help="also run the open loop through Debian's pgbouncer")
    parser.add_argument("--instructions", action=argparse.BooleanOptionalAction, default=True,
                        help="count a round trip's instructions with valgrind (about a minute)")
    args = parser.parse_args()
    # The test client speaks plain http to "testserver".
    os.environ.update(ALLOWED_HOSTS="testserver", SECURE_SSL_REDIRECT="0")
    setup_django(args.database_url, fresh=not args.reuse)
    from django.core.management import call_command

    call_command("collectstatic", "--noinput", verbosity=0)  # pages render as in production (DEBUG off)
    started = time.perf_counter()
    if args.reuse:
        from django.contrib.auth import get_user_model

        from annotation.models import Study
        from taxonomy.models import Category

        study = Study.objects.get(name="Bench study")
        labelers = list(get_user_model().objects.filter(username__in=["lead", *(f"ann{i}" for i in range(1, 7))])
                        .order_by("id"))
        themes = list(Category.objects.filter(level=Category.Level.THEME).values_list("pk", "parent_id"))
    else:
        study, labelers, themes = build(args.path)
    from annotation.models import Label

    print(f"set-up                 {time.perf_counter() - started:.0f} s: {study.issues.count()} reports, "
          f"{Label.objects.count()} labels, {LABELERS} labelers")
    if args.requests:
        measure_in_process(study, labelers[1], themes, args.requests)
    if args.instructions:
        millions = instructions.count(study.name, labelers[3].username)
        if millions is None:
            print("instructions           valgrind is not installed: apt-get install valgrind")
        else:
            print(f"instructions           {millions:.2f} million per round trip (callgrind, inside Django, no "
                  "network): the same whatever else the machine does")
    if args.round_trips:
        # One annotator alone, timed over HTTP as the peers' figures are (README), then the seven at once.
        measure_concurrent(study, labelers[2:3], themes, 3 * args.round_trips, args.workers, args.threads)
        measure_concurrent(study, labelers, themes, args.round_trips, args.workers, args.threads)
    if args.open_loop:
        with gunicorn(args.workers, args.threads) as server:
            open_loop.measure(study, themes, server, seconds=args.open_loop)
    if args.pgbouncer:
        # The same open-loop load, with gunicorn reaching PostgreSQL through PgBouncer in transaction mode.
        with pgbouncer(args.database_url) as pooled_url, gunicorn(args.workers, args.threads, DATABASE_URL=pooled_url,
                                                                  DB_BEHIND_PGBOUNCER="1") as server:
            print("through PgBouncer      transaction pooling, 20 server connections")
            open_loop.measure(study, themes, server, seconds=args.open_loop or 60, prefix="pgb")


if __name__ == "__main__":
    main()
