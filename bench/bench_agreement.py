"""Benchmark: importing 40,000 reports × 7 raters' labels, then every figure of the agreement dashboard.

    python bench/bench_agreement.py [--reports 40000] [--raters 7] [--database-url …]

Writes a wide CSV (one row per report: URL, Label1…Label7, Final_Label) with the shipped codebook's
sub-theme codes, each rater giving the report's true sub-theme with probability 0.8 and a random one
otherwise (seeded), into a fresh PostgreSQL database through `import_labels` (then VACUUM ANALYZE, as autovacuum
would have done before anyone opens the dashboard); then times the dashboard's
figures (Fleiss' kappa with 1,000 bootstrap resamples per figure, Krippendorff's alpha, per-category kappas,
per-rater agreement, ties) at theme and at sub-theme level, and prints them with their timings, beside the
floor: the same figures computed from the labels already in memory (numpy work alone).
"""
from __future__ import annotations

import argparse
import csv
import os
import random
import tempfile
import time
from pathlib import Path

from common import DEFAULT_URL, setup_django


def write_corpus(path: Path, reports: int, raters: int, seed: int = 7) -> None:
    from taxonomy.models import Category
    from taxonomy.services import load_codebook

    codebook = load_codebook()
    subs = list(Category.objects.filter(codebook=codebook, level=Category.Level.SUB_THEME).values_list("code",
                                                                                                     flat=True))
    rng = random.Random(seed)
    with open(path, "w", newline="", encoding="utf-8") as f:
        out = csv.writer(f)
        out.writerow(["Issue_URL", *(f"Label{i}" for i in range(1, raters + 1)), "Final_Label"])
        for n in range(1, reports + 1):
            truth = rng.choice(subs)
            labels = [truth if rng.random() < 0.8 else rng.choice(subs) for _ in range(raters)]
            out.writerow([f"https://github.com/bench-org/bench-repo/issues/{n}", *labels, truth])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reports", type=int, default=40000)
    parser.add_argument("--raters", type=int, default=7)
    parser.add_argument("--database-url", default=os.environ.get("BENCH_DATABASE_URL", DEFAULT_URL))
    args = parser.parse_args()
    setup_django(args.database_url)
    from agreement.reports import agreement_from, read_round, study_agreement
    from corpus.imports import import_labels

    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "labels.csv"
        write_corpus(path, args.reports, args.raters)
        started = time.perf_counter()
        summary = import_labels("Bench agreement", path, prefix="bench-")
        imported = time.perf_counter() - started
    print(f"import_labels          {summary.labels_new} labels, {summary.decisions} final labels, "
          f"{summary.reports_created} reports created: {imported:.1f} s")
    round = summary.study.rounds.get()
    # The labels as a database holds them once autovacuum has seen the import: otherwise its analysis of 280,000
    # new rows runs beside the first dashboards and the planner has no statistics for them.
    from django.db import connection

    from annotation.models import FinalLabel, Label, Queue

    started = time.perf_counter()
    with connection.cursor() as cursor:
        for model in (Label, FinalLabel, Queue):
            cursor.execute(f"VACUUM (ANALYZE) {model._meta.db_table}")
    print(f"vacuum, analyze        {time.perf_counter() - started:.1f} s")
    # The statistics libraries are imported where they are used; a worker pays that once, not per dashboard.
    import scipy.stats  # noqa: F401
    import statsmodels.stats.inter_rater  # noqa: F401

    for level in ("theme", "sub_theme"):
        started = time.perf_counter()
        agreement = study_agreement(round, level)
        elapsed = time.perf_counter() - started
        # The floor: the same figures from the labels already in memory (numpy work only), in the same run.
        read = read_round(round)
        started = time.perf_counter()
        agreement_from(read, level)
        floor = time.perf_counter() - started
        print(f"dashboard at {level:<9} {elapsed:.2f} s (1,000 bootstrap resamples per figure; target < 1 s at "
              f"sub-theme level); floor: the figures from matrices in memory {floor:.2f} s, reading the labels "
              f"{elapsed - floor:.2f} s; {elapsed / floor:.1f}× the floor")
        t = agreement.by_type
        print(f"  type                 kappa {t.value:.3f} ({t.ci_low:.3f}–{t.ci_high:.3f}), alpha "
              f"{agreement.type_alpha.value:.3f}, {t.n_reports} reports, {t.n_raters} raters")
        for per in agreement.per_type:
            f = per.fleiss
            print(f"  {per.type.code} {per.type.name:<17} kappa {f.value:.3f} ({f.ci_low:.3f}–{f.ci_high:.3f}), "
                  f"alpha {per.alpha.value:.3f}, {f.n_reports} reports, {len(f.categories)} categories")


if __name__ == "__main__":
    main()
