"""Benchmark: the memory Concord holds while idle, as proportional set size (PSS), web server plus one worker.

    python bench/bench_memory.py [--database-url …] [--worker-args "…"]

Builds a fresh PostgreSQL database with the demo (`load_demo`, `load_machine_demo`), then starts the web server
as the Docker image runs it (gunicorn, 2 workers × 4 threads) and one Celery worker as `make worker` runs it
(every queue), both on Redis. Prints each process's PSS (from /proc/PID/smaps_rollup: pages shared between
processes counted once, divided among them, so the sum is what the machine gives them):

1. idle after start;
2. just after one request of each kind — pages of every app as the lead and an annotator, the labeling API —
   and one task of each kind (a file import, a summary batch, a machine rater's run, an agreement figure),
   while the worker still keeps the processes that ran the statistics tasks (concord.child_processes);
3. idle after those, once the worker has ended them (`TASKS_APART_IDLE` seconds after their last task).

Target: web + worker ≤ 250 MiB idle, after start and after use.
"""
from __future__ import annotations

import argparse
import json
import os
import shlex
import subprocess
import sys
import time
from pathlib import Path

from bench_label import gunicorn
from common import ROOT, session_key, setup_django

TARGET_MIB = 250
# As `make worker` runs it: one worker for every queue (`make bench-memory` passes the Makefile's own).
WORKER_ARGS = "--queues ingest,summaries,statistics,celery --pool=threads --concurrency=2"


def pss_kib(pid: int) -> int:
    try:
        text = Path(f"/proc/{pid}/smaps_rollup").read_text()
    except (FileNotFoundError, ProcessLookupError):  # a pool child replaced meanwhile
        return 0
    for line in text.splitlines():
        if line.startswith("Pss:"):
            return int(line.split()[1])
    return 0


def tree(pid: int) -> list[int]:
    """The process and its descendants (those alive when read)."""
    pids = [pid]
    # Each thread lists the children it started: the worker's pool threads start its task processes.
    for thread in Path(f"/proc/{pid}/task").glob("*"):
        try:
            children = (thread / "children").read_text().split()
        except (FileNotFoundError, ProcessLookupError):
            continue
        for child in children:
            pids += tree(int(child))
    return pids


def report(name: str, pid: int) -> float:
    rows = [(p, pss_kib(p) / 1024) for p in tree(pid)]
    total = sum(mib for _, mib in rows)
    parts = ", ".join(f"{mib:.0f}" for _, mib in rows)
    print(f"  {name:<8} {total:6.1f} MiB  ({len(rows)} processes: {parts} MiB)")
    return total


def measure(web_pid: int, worker_pids: list[int], label: str, idle: bool = True) -> float:
    print(label)
    total = report("web", web_pid) + sum(report("worker", pid) for pid in worker_pids)
    verdict = ("within" if total <= TARGET_MIB else "OVER") + f" the {TARGET_MIB} MiB target" if idle else \
        "not idle: the target is for idle"
    print(f"  {'total':<8} {total:6.1f} MiB  ({verdict})")
    return total


def task_latency() -> None:
    """What keeping the statistics apart costs: an agreement task (the demo's published study) sent when the
    worker has no task process (one is started: Django and the statistics libraries load), then at once again."""
    from agreement.services import compute_agreement_task
    from annotation.models import Study
    from annotation.selectors.studies import agreement_round
    from demo.services import PUBLISHED_STUDY

    round_id = agreement_round(Study.objects.get(name=PUBLISHED_STUDY)).pk
    for state in ("no task process kept", "its process kept"):
        started = time.perf_counter()
        compute_agreement_task.apply_async(args=(round_id,), ignore_result=False).get(timeout=300)
        print(f"  agreement task, {state}: {time.perf_counter() - started:.2f} s")


def children_gone(pids: list[int], seconds: float, pool_children: int) -> float:
    """Seconds until the workers have no task process left beyond their pools' own children (task processes end
    TASKS_APART_IDLE seconds after their last task, concord.child_processes)."""
    started = time.monotonic()
    while sum(len(tree(pid)) - 1 for pid in pids) > pool_children and time.monotonic() - started < seconds:
        time.sleep(0.5)
    return time.monotonic() - started


def session_for(username: str) -> str:
    from django.contrib.auth import get_user_model

    return session_key(get_user_model().objects.get(username=username))


def pages() -> list[tuple[str, str]]:
    """(who, path): one page of each kind, for the lead and for an annotator."""
    from django.urls import reverse

    from annotation.models import Study
    from demo.services import LABELING_STUDY, PUBLISHED_STUDY, SIMULATED_STUDY
    from ingest.models import Source
    from machines.models import MachineRater

    labeling = Study.objects.get(name=LABELING_STUDY)
    published = Study.objects.get(name=PUBLISHED_STUDY)
    simulated = Study.objects.get(name=SIMULATED_STUDY)
    source = Source.objects.get()
    rater = MachineRater.objects.filter(study=published).first()
    lead = [
        reverse("annotation:study_list"), reverse("annotation:study_detail", args=[published.pk]),
        reverse("agreement:study_agreement", args=[published.pk]) + "?level=sub_theme",
        reverse("findings:statistics", args=[published.pk]),
        reverse("annotation:adjudication_list", args=[simulated.pk]),
        reverse("codebook:changelog", args=[published.pk]),
        reverse("ingest:source_detail", args=[source.pk]),
        reverse("corpus:corpus_csv", args=[published.pk]),
        reverse("api:report_list", args=[published.pk]) + "?q=cuda",
    ]
    if rater:
        lead.append(reverse("machines:rater", args=[published.pk, rater.pk]))
    annotator = [reverse("annotation:queue", args=[labeling.pk]), reverse("api:queue_next", args=[labeling.pk])]
    return [("lead", path) for path in lead] + [("ann1", path) for path in annotator]


def requests_of_each_kind(port: int) -> None:
    import http.client

    cookies = {who: session_for(who) for who in ("lead", "ann1")}
    for who, path in pages():
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
        connection.request("GET", path, headers={"Cookie": f"sessionid={cookies[who]}"})
        response = connection.getresponse()
        response.read()
        print(f"  GET {path} as {who}: {response.status}")
        assert response.status == 200, (path, response.status)
    # And a label saved through the API, as the labeling page does.
    from annotation.models import Study
    from demo.services import LABELING_STUDY
    from taxonomy.models import Category

    study = Study.objects.get(name=LABELING_STUDY)
    theme = Category.objects.filter(codebook=study.codebook, level=Category.Level.THEME).first()
    headers = {"Cookie": f"sessionid={cookies['ann1']}; csrftoken={'c' * 32}", "X-CSRFToken": "c" * 32,
               "Referer": "http://127.0.0.1/", "Accept": "application/json", "Content-Type": "application/json"}
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
    connection.request("GET", f"/api/studies/{study.pk}/queue/next/", headers=headers)
    issue = json.loads(connection.getresponse().read())["report"]["id"]
    connection.request("POST", f"/api/studies/{study.pk}/labels/", headers=headers,
                       body=json.dumps({"issue": issue, "type": theme.parent_id, "theme": theme.pk}))
    response = connection.getresponse()
    response.read()
    print(f"  POST /api/studies/{study.pk}/labels/ as ann1: {response.status}")
    assert response.status == 201, response.status


def tasks_of_each_kind() -> None:
    from agreement.services import compute_agreement_task
    from annotation.models import Study
    from annotation.selectors.studies import agreement_round
    from demo.services import DEMO_ISSUES, PUBLISHED_STUDY
    from ingest.models import IngestRun, Source
    from ingest.services import runs, work
    from ingest.services.summaries import start_summary_batch
    from machines.models import MachineRater, MachineRun
    from machines.services.runs import start_run

    published = Study.objects.get(name=PUBLISHED_STUDY)
    source = Source.objects.get()
    started = time.perf_counter()
    run = work.enqueue(runs.create_run(source, IngestRun.Kind.FILE, file_path=str(DEMO_ISSUES), file_format="jsonl"))
    batch = start_summary_batch(source)
    machine = start_run(MachineRater.objects.filter(study=published).first())
    figure = compute_agreement_task.apply_async(args=(agreement_round(published).pk,), ignore_result=False)
    figure.get(timeout=300)
    for model, pk in ((type(run), run.pk), (type(batch), batch.pk), (MachineRun, machine.pk)):
        while model.objects.get(pk=pk).status in ("queued", "running"):
            time.sleep(0.5)
        print(f"  task {model.__name__}: {model.objects.get(pk=pk).status}")
    print(f"  the four tasks took {time.perf_counter() - started:.1f} s")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--database-url", default=os.environ.get(
        "BENCH_MEMORY_DATABASE_URL", "postgres://postgres@127.0.0.1:5432/concord_bench_memory"))
    parser.add_argument("--worker-args", action="append",
                        help="a worker's arguments; given twice, two workers (default: as `make worker`)")
    parser.add_argument("--settle", type=float, default=3.0, help="seconds to wait before each reading")
    args = parser.parse_args()
    os.environ.setdefault("REDIS_URL", "redis://127.0.0.1:6379/15")
    setup_django(args.database_url)
    from django.conf import settings
    from django.core.management import call_command

    call_command("collectstatic", "--noinput", verbosity=0)
    call_command("load_demo", verbosity=0)
    call_command("load_machine_demo", verbosity=0)
    env = {**os.environ, "DATABASE_URL": args.database_url}
    worker_args = args.worker_args or [WORKER_ARGS]
    workers = [subprocess.Popen([sys.executable, "-m", "celery", "-A", "config", "worker", "--loglevel", "warning",
                                 "--hostname", f"bench{n}@%h", *shlex.split(one)], cwd=ROOT, env=env)
               for n, one in enumerate(worker_args)]
    pids = [worker.pid for worker in workers]
    # A prefork pool keeps its children for good: they are the worker, not task processes to wait for.
    pool_children = sum(_concurrency(one) for one in worker_args if "--pool=prefork" in one)
    try:
        with gunicorn(2, 4) as server:
            from config.celery import app

            while len(app.control.ping(timeout=1.0)) < len(workers):
                time.sleep(0.5)
            time.sleep(args.settle)
            print(f"gunicorn 2 workers × 4 threads; celery workers: {' | '.join(worker_args)}; "
                  f"TASKS_APART={int(settings.TASKS_APART)}")
            start = measure(server.process.pid, pids, "idle after start")
            requests_of_each_kind(server.port)
            tasks_of_each_kind()
            time.sleep(args.settle)
            measure(server.process.pid, pids, "just after, the worker's task processes still kept", idle=False)
            waited = children_gone(pids, settings.TASKS_APART_IDLE + 60, pool_children)
            time.sleep(args.settle)
            after = measure(server.process.pid, pids, "idle after one request and one task of each kind "
                            f"(its task processes ended {waited:.0f} s after the tasks)")
            print(f"web + worker: {start:.0f} MiB after start, {after:.0f} MiB after one of each "
                  f"(target ≤ {TARGET_MIB} MiB)")
            task_latency()
    finally:
        for worker in workers:
            worker.terminate()
        for worker in workers:
            worker.wait(timeout=60)


def _concurrency(worker_args: str) -> int:
    words = shlex.split(worker_args)
    for n, word in enumerate(words):
        if word.startswith("--concurrency="):
            return int(word.split("=", 1)[1])
        if word in ("--concurrency", "-c"):
            return int(words[n + 1])
    return os.cpu_count() or 1


if __name__ == "__main__":
    main()
