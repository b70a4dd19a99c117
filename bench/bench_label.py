"""Benchmark: "next report" and "submit label" on a study of 40,000 reports that 7 annotators have labeled.

    python bench/bench_label.py FILE.jsonl [--requests 500] [--database-url …]

Builds a fresh PostgreSQL database: the corpus as one source, the default codebook, a study with a lead and
7 annotators, and every annotator's label on every report (280,000 labels) except the 600 reports the
measured annotator still has to do. Then times, inside Django (the test client: middleware, views,
templates, database; no network), the labeling page ("next report") and the htmx label submission, and
counts the SQL queries of each. Prints p50, p95 and the query counts.
"""
from __future__ import annotations

import argparse
import os
import statistics
import time

from common import DEFAULT_URL, setup_django

TODO = 600


def _percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(share * (len(ordered) - 1)))]


def build(path: str, annotators: int):
    from django.contrib.auth import get_user_model
    from django.db import connection, transaction
    from django.utils import timezone

    from annotation.models import Label, Study
    from annotation.services.studies import create_study
    from ingest.models import Issue, Source
    from ingest.services.files import import_file
    from taxonomy.models import Category
    from taxonomy.services import load_codebook

    taxonomy = load_codebook()
    source = Source.objects.create(full_name="bench-org/bench-repo", display_name="Bench")
    import_file(path, source, file_format="jsonl")
    User = get_user_model()
    lead = User.objects.create_user("lead", password="bench-pw-lead")
    people = [User.objects.create_user(f"ann{i}", password=f"bench-pw-ann{i}") for i in range(1, annotators + 1)]
    study = create_study(name="Bench study", taxonomy=taxonomy, issues=Issue.objects.all(), lead=lead,
                         annotators=people)
    round_ = study.rounds.get()
    themes = list(Category.objects.filter(level=Category.Level.THEME).values_list("pk", "parent_id"))
    issue_ids = list(Issue.objects.order_by("created_at", "pk").values_list("pk", flat=True))
    measured = people[0]
    now = timezone.now()
    with transaction.atomic(), connection.cursor() as cursor, cursor.cursor.copy(
        f"COPY {Label._meta.db_table} (study_id, round_id, issue_id, annotator_id, is_relevant, type_id, theme_id, "
        "note, created_at, updated_at) FROM STDIN"
    ) as copy:
        for person in people:
            todo = issue_ids if person != measured else issue_ids[:-TODO]
            for n, issue_id in enumerate(todo):
                theme_id, type_id = themes[(n * 7 + person.pk) % len(themes)]
                copy.write_row((study.pk, round_.pk, issue_id, person.pk, True, type_id, theme_id, "", now, now))
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE")
    return Study.objects.get(pk=study.pk), measured, themes


def measure(study, annotator, themes, requests: int) -> None:
    from django.db import connection
    from django.test import Client
    from django.test.utils import CaptureQueriesContext
    from django.urls import reverse

    client = Client()
    client.force_login(annotator)
    queue_url = reverse("annotation:queue", args=[study.pk])
    theme_id, type_id = themes[0]
    next_times, submit_times, next_queries, submit_queries = [], [], [], []
    html = client.get(queue_url).content.decode()  # warm-up
    for _ in range(requests):
        connection.queries_log.clear()  # the log keeps 9,000 queries; counts are per request
        with CaptureQueriesContext(connection) as queries:
            started = time.perf_counter()
            html = client.get(queue_url).content.decode()
            next_times.append(time.perf_counter() - started)
        next_queries.append(len(queries))
        issue_id = int(html.split('data-issue="')[1].split('"')[0])
        url = reverse("annotation:label_submit", args=[study.pk, issue_id])
        connection.queries_log.clear()
        with CaptureQueriesContext(connection) as queries:
            started = time.perf_counter()
            response = client.post(url, {"type": type_id, "theme": theme_id}, headers={"HX-Request": "true"})
            submit_times.append(time.perf_counter() - started)
        submit_queries.append(len(queries))
        assert response.status_code == 200, response.content[:500]
    from annotation.models import Label

    print(f"study           {study.issues.count()} reports, {Label.objects.count()} labels, "
          f"{study.memberships.count()} members")
    for name, times, queries in (("next report", next_times, next_queries),
                                 ("submit label", submit_times, submit_queries)):
        print(f"{name:<15} p50 {1000 * statistics.median(times):.1f} ms, p95 {1000 * _percentile(times, 0.95):.1f} ms, "
              f"queries {min(queries)}–{max(queries)} ({requests} requests)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("path")
    parser.add_argument("--requests", type=int, default=500)
    parser.add_argument("--annotators", type=int, default=7)
    parser.add_argument("--database-url", default=os.environ.get("BENCH_DATABASE_URL", DEFAULT_URL))
    args = parser.parse_args()
    # The test client speaks plain http to "testserver".
    os.environ.update(ALLOWED_HOSTS="testserver", SECURE_SSL_REDIRECT="0")
    setup_django(args.database_url)
    from django.core.management import call_command

    call_command("collectstatic", "--noinput", verbosity=0)  # pages render as in production (DEBUG off)
    started = time.perf_counter()
    study, annotator, themes = build(args.path, args.annotators)
    print(f"set-up          {time.perf_counter() - started:.0f} s")
    measure(study, annotator, themes, args.requests)


if __name__ == "__main__":
    main()
