"""Benchmark: exporting a study of 40,000 reports × 7 labels to CSV and to JSON Lines, and its replication package.

    python bench/bench_export.py FILE.jsonl [--database-url …] [--package-only] [--reuse] [--runs 3]

Builds the labeling benchmark's study on a fresh PostgreSQL database (the corpus, 7 labelers, about 271,000
labels), gives every report a final label, then times the floor — PostgreSQL writing the same rows and columns
as CSV by itself (COPY (SELECT …) TO STDOUT) — and runs `manage.py export_corpus` per format in a child
process, printing the corpus file's time (the least of --runs runs, as the floor's), its multiple of the floor
(target: within 1.5×, under 300 MB) and the child's peak memory (the export streams; memory should stay flat);
then the replication package once (target: under 60 s).
"""
from __future__ import annotations

import argparse
import os
import re
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
    # As an admin: the lead labels blind in the bench's open round, and a blind lead may not export.
    from django.contrib.auth import get_user_model
    get_user_model().objects.get_or_create(username="bench-admin", defaults={"is_staff": True, "is_superuser": True})
    call_command("replication_package", "Bench study", sys.argv[2], "--as", "bench-admin")
else:
    call_command("export_corpus", "Bench study", "--format", sys.argv[1], "--output", sys.argv[2])  # prints times
status = open("/proc/self/status").read()
print("peak", [line.split()[1] for line in status.splitlines() if line.startswith("VmHWM")][0])
"""


def finals(study) -> None:
    """A final label for every report, as closing the study would write (the first labeler's choice here)."""
    from django.db import connection
    from django.utils import timezone

    from annotation.models import FinalLabel, Label
    from annotation.sql import insert_rows

    first = Label.objects.filter(study=study, annotator__username="lead").order_by().values_list(
        "issue_id", "type_id", "theme_id")
    now = timezone.now()
    insert_rows(FinalLabel, ["study_id", "issue_id", "is_relevant", "type_id", "theme_id", "method", "support",
                           "raters", "rationale", "decided_at"],
                ((study.pk, issue_id, True, type_id, theme_id, "majority", 5, 7, "", now)
                 for issue_id, type_id, theme_id in first))
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE")


# The floor: the same rows and columns as the corpus CSV, made by PostgreSQL alone (COPY … TO STDOUT), so that
# the export's time reads as a multiple of what the database itself costs to deliver them. The study's status,
# screening and codebook columns are constants here (they are per study, or derived from source-level data the
# bench study does not have), and the bench study has no machine raters.
FLOOR_SQL = """
COPY (
  SELECT st.name AS study, 'closed' AS study_status, src.full_name AS source, i.number, i.url, i.title, i.body,
    i.created_at,
    (SELECT string_agg(k.term, ' ' ORDER BY k.term) FROM ingest_issue_matched_keywords ik
       JOIN ingest_keyword k ON k.id = ik.keyword_id WHERE ik.issue_id = i.id) AS matched_keywords,
    'undecided' AS screening, 'not screened' AS screening_reason,
    (SELECT s.text FROM ingest_summary s WHERE s.issue_id = i.id AND s.status = 'ok'
       ORDER BY s.updated_at DESC, s.id DESC LIMIT 1) AS summary,
    ft.code AS final_type_code, ft.name AS final_type, fh.code AS final_theme_code, fh.name AS final_theme,
    fs.code AS final_sub_theme_code, fs.name AS final_sub_theme,
    d.method || ' ' || d.support || '/' || d.raters AS final_how, d.rationale AS final_rationale,
    'codebook' AS codebook,
    (SELECT json_agg(json_build_object('annotator', u.username, 'round', r.number, 'round_kind', r.kind,
                                       'choice', COALESCE(ls.code, lh.code, ly.code), 'note', l.note,
                                       'time', l.updated_at, 'codebook_revision', l.codebook_revision,
                                       'summary_shown', l.summary_shown) ORDER BY r.number, u.username)
       FROM annotation_label l JOIN auth_user u ON u.id = l.annotator_id JOIN annotation_round r ON r.id = l.round_id
       LEFT JOIN taxonomy_category ly ON ly.id = l.type_id LEFT JOIN taxonomy_category lh ON lh.id = l.theme_id
       LEFT JOIN taxonomy_category ls ON ls.id = l.sub_theme_id
       WHERE l.study_id = st.id AND l.issue_id = i.id) AS labels,
    '{}' AS machine_labels
  FROM annotation_study st JOIN annotation_study_issues si ON si.study_id = st.id
  JOIN ingest_issue i ON i.id = si.issue_id JOIN ingest_source src ON src.id = i.source_id
  LEFT JOIN annotation_finallabel d ON d.study_id = st.id AND d.issue_id = i.id
  LEFT JOIN taxonomy_category ft ON ft.id = d.type_id LEFT JOIN taxonomy_category fh ON fh.id = d.theme_id
  LEFT JOIN taxonomy_category fs ON fs.id = d.sub_theme_id
  WHERE st.id = {study}
  ORDER BY i.created_at, i.id
) TO STDOUT WITH (FORMAT csv, HEADER)
"""


def copy_floor(study, path: Path) -> float:
    """Seconds for PostgreSQL to write the corpus's rows and columns as CSV into `path`."""
    from django.db import connection

    started = time.perf_counter()
    with connection.cursor() as cursor, open(path, "wb") as out:
        with cursor.cursor.copy(FLOOR_SQL.replace("{study}", str(int(study.pk)))) as copy:
            for block in copy:
                out.write(block)
    return time.perf_counter() - started


# The targets: each corpus file within 1.5× PostgreSQL's own COPY of the same rows, under 300 MB; the replication
# package under 60 s. The run exits 1 when one is missed, naming it.
RATIO_CEILING, PEAK_CEILING_MB, PACKAGE_CEILING_S = 1.5, 300, 60


def verdict(what: str, value: float, ceiling: float, unit: str) -> bool:
    within = value <= ceiling
    print(f"  {what}: {value:.1f}{unit} {'≤' if within else '>'} {ceiling:g}{unit}{'' if within else ' MISSED'}")
    return within


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("path")
    parser.add_argument("--database-url", default=os.environ.get("BENCH_DATABASE_URL", DEFAULT_URL))
    parser.add_argument("--package-only", action="store_true", help="time only the replication package")
    parser.add_argument("--reuse", action="store_true", help="export the study a previous run built (for tuning)")
    parser.add_argument("--runs", type=int, default=3,
                        help="time the floor and each corpus file this many times and keep the least")
    args = parser.parse_args()
    setup_django(args.database_url, fresh=not args.reuse)
    from bench_label import build

    from annotation.models import FinalLabel, Label, Study

    started = time.perf_counter()
    if args.reuse:
        study = Study.objects.get(name="Bench study")
    else:
        study, _, _ = build(args.path)
        finals(study)
    print(f"set-up                 {time.perf_counter() - started:.0f} s: {study.issues.count()} reports, "
          f"{Label.objects.count()} labels, {FinalLabel.objects.count()} final labels")
    env = {**os.environ, "DATABASE_URL": args.database_url, "DJANGO_SETTINGS_MODULE": "config.settings"}
    checks: list[tuple[str, float, float, str]] = []
    with tempfile.TemporaryDirectory() as folder:
        # The least of several runs, the floor's as the files': this machine's speed moves from one minute to
        # the next, and noise only ever adds time (timeit's advice), so the least is the closest to the cost.
        floor = min(copy_floor(study, Path(folder) / "floor.csv") for _ in range(args.runs))
        size = (Path(folder) / "floor.csv").stat().st_size / 1e6
        print(f"floor: COPY            {floor:.1f} s, {size:.0f} MB written (PostgreSQL alone: the same rows and "
              f"columns as the CSV, as CSV; the least of {args.runs} runs)")
        for fmt in (("package",) if args.package_only else ("csv", "jsonl", "package")):
            output = Path(folder) / ("replication.zip" if fmt == "package" else f"corpus.{fmt}")
            runs = []
            for _ in range(1 if fmt == "package" else args.runs):
                started = time.perf_counter()
                result = subprocess.run([sys.executable, "-c", CHILD, fmt, str(output)], cwd=ROOT, env=env,
                                        capture_output=True, text=True, check=True)
                elapsed = time.perf_counter() - started
                # The command says how long the corpus file took, apart from study.json and the dataset card.
                corpus = float(re.search(r"\) in ([0-9.]+) s", result.stdout).group(1)) if fmt != "package" else 0
                runs.append((corpus, elapsed, int(result.stdout.split("peak")[-1])))
            size = output.stat().st_size / 1e6
            peak_kb = max(peak for _, _, peak in runs)
            if fmt == "package":
                elapsed = runs[0][1]
                print(f"replication package    {elapsed:.1f} s, {size:.0f} MB written, peak memory "
                      f"{peak_kb / 1024:.0f} MB")
                checks.append(("replication package", elapsed, PACKAGE_CEILING_S, " s"))
                continue
            corpus, elapsed, _ = min(runs)
            print(f"export {fmt:<5}           corpus {corpus:.1f} s = {corpus / floor:.1f}× the floor, {size:.0f} MB "
                  f"written; the whole command {elapsed:.1f} s with study.json and the dataset card; peak memory "
                  f"{peak_kb / 1024:.0f} MB (the least time and the greatest peak of {len(runs)} runs: "
                  f"{', '.join(f'{c:.1f}' for c, _, _ in runs)} s)")
            checks += [(f"{fmt} ÷ COPY", corpus / floor, RATIO_CEILING, "×"),
                       (f"{fmt} peak", peak_kb / 1024, PEAK_CEILING_MB, " MB")]
    print("Against the targets:")
    results = [verdict(*check) for check in checks]
    sys.exit(0 if all(results) else 1)


if __name__ == "__main__":
    main()
