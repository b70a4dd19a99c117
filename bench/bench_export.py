"""Benchmark: exporting a study of 40,000 reports × 7 labels to CSV and to JSON Lines, and its replication package.

    python bench/bench_export.py FILE.jsonl [--database-url …] [--package-only]

Builds the labeling benchmark's study on a fresh PostgreSQL database (the corpus, 7 labelers, about 271,000
labels), gives every report a final label, then runs `manage.py export_corpus` once per format in a child
process and prints the time and the child's peak memory (the export streams; memory should stay flat).
"""
from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from common import DEFAULT_URL, ROOT, setup_django

# VmHWM, not getrusage: ru_maxrss survives exec, so a child would report the benchmark's own peak.
CHILD = """
import sys, django
django.setup()
from django.core.management import call_command
if sys.argv[1] == "package":
    call_command("replication_package", "Bench study", sys.argv[2], "--as", "lead")
else:
    call_command("export_corpus", "Bench study", "--format", sys.argv[1], "--output", sys.argv[2])
status = open("/proc/self/status").read()
print("peak", [line.split()[1] for line in status.splitlines() if line.startswith("VmHWM")][0])
"""


def finals(study) -> None:
    """A final label for every report, as closing the study would write (the first labeler's choice here)."""
    from django.db import connection
    from django.utils import timezone

    from annotation.models import Decision, Label
    from annotation.services.bulk_rows import insert_rows

    first = Label.objects.filter(study=study, annotator__username="lead").order_by().values_list(
        "issue_id", "type_id", "theme_id")
    now = timezone.now()
    insert_rows(Decision, ["study_id", "issue_id", "is_relevant", "type_id", "theme_id", "method", "support",
                           "raters", "rationale", "decided_at"],
                ((study.pk, issue_id, True, type_id, theme_id, "majority", 5, 7, "", now)
                 for issue_id, type_id, theme_id in first))
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("path")
    parser.add_argument("--database-url", default=os.environ.get("BENCH_DATABASE_URL", DEFAULT_URL))
    parser.add_argument("--package-only", action="store_true", help="time only the replication package")
    args = parser.parse_args()
    setup_django(args.database_url)
    from bench_label import build

    from annotation.models import Decision, Label

    started = time.perf_counter()
    study, _, _ = build(args.path)
    finals(study)
    print(f"set-up                 {time.perf_counter() - started:.0f} s: {study.issues.count()} reports, "
          f"{Label.objects.count()} labels, {Decision.objects.count()} final labels")
    env = {**os.environ, "DATABASE_URL": args.database_url, "DJANGO_SETTINGS_MODULE": "concord.settings"}
    with tempfile.TemporaryDirectory() as folder:
        for fmt in (("package",) if args.package_only else ("csv", "jsonl", "package")):
            output = Path(folder) / ("replication.zip" if fmt == "package" else f"corpus.{fmt}")
            started = time.perf_counter()
            result = subprocess.run([sys.executable, "-c", CHILD, fmt, str(output)], cwd=ROOT, env=env,
                                    capture_output=True, text=True, check=True)
            elapsed = time.perf_counter() - started
            peak_kb = int(result.stdout.split("peak")[-1])
            size = output.stat().st_size / 1e6
            print(f"export {fmt:<5}           {elapsed:.1f} s, {size:.0f} MB written, peak memory "
                  f"{peak_kb / 1024:.0f} MB (the whole process: Django, the export, study.json, the dataset card)")


if __name__ == "__main__":
    main()
