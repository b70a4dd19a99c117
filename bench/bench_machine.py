"""Benchmark: the built-in machine rater on the 40,000 generated reports (the goal: under 60 s).

    python bench/bench_machine.py bench-out/issues-40000.jsonl [--folds 5] [--job]

Every report gets a training label drawn (seeded) from the shipped codebook's sub-themes, so every level has
models to fit: the type, every theme (20) at once, the sub-theme given the theme. The labels are random,
so the figure is the time and memory of cross-fitting, not the model's quality (the tests measure that on the
study's real vLLM reports). Prints the seconds for the features pass alone and for the whole rating, and the
process's peak memory.

With --job it then does what the Celery job does, on PostgreSQL: builds the labeling benchmark's study (40,000
reports, about 271,000 labels by 7 labelers) with a final label per report, and times one run of a built-in
rater from the first query to the last label written, and its measurement against the panel at type level.
"""
from __future__ import annotations

import argparse
import json
import random
import resource
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

CODEBOOK = ROOT / "taxonomy" / "codebooks" / "llm-centric-2025.json"


def _codes() -> list[tuple[str, str, str | None]]:
    codebook = json.loads(CODEBOOK.read_text(encoding="utf-8"))
    out = []
    for t in codebook["types"]:
        for theme in t.get("themes", []):
            subs = [s["code"] for s in theme.get("sub_themes", [])] or [None]
            out += [(t["code"], theme["code"], sub) for sub in subs]
    return out


def main() -> None:
    from machines.classifier import Settings, features, rate

    parser = argparse.ArgumentParser()
    parser.add_argument("path")
    parser.add_argument("--folds", type=int, default=5)
    parser.add_argument("--job", action="store_true", help="also time the whole job on PostgreSQL")
    args = parser.parse_args()
    if args.job:
        job(args.path)
        return
    texts = []
    with open(args.path, encoding="utf-8") as f:
        for line in f:
            issue = json.loads(line)
            texts.append(f"{issue.get('title', '')}\n{issue.get('body') or ''}")
    pick = random.Random(7)
    codes = _codes()
    labels = [("NR", None, None) if pick.random() < 0.05 else pick.choice(codes) for _ in texts]
    settings = Settings(folds=args.folds)
    started = time.perf_counter()
    features(texts, settings)
    floor = time.perf_counter() - started
    started = time.perf_counter()
    rated = rate(texts, labels, settings)
    seconds = time.perf_counter() - started
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"reports                {len(texts):,} ({sum(r is not None for r in rated):,} rated), "
          f"{len({c[1] for c in codes})} themes, {len({c[2] for c in codes if c[2]})} sub-themes, "
          f"{args.folds} folds")
    print(f"features pass alone     {floor:.1f} s (hashed n-grams, TF-IDF)")
    print(f"rating, cross-fitted   {seconds:.1f} s (goal: under 60 s); {seconds / floor:.1f}× the features pass")
    print(f"peak memory            {peak:.0f} MB")


def job(path: str) -> None:
    import os

    sys.path.insert(0, str(ROOT / "bench"))
    from common import DEFAULT_URL, setup_django

    setup_django(os.environ.get("BENCH_DATABASE_URL", DEFAULT_URL))
    from bench_export import finals
    from bench_label import build

    from machines.selectors import measurement
    from machines.services.raters import add_rater
    from machines.services.runs import run, start_run

    started = time.perf_counter()
    study, _, _ = build(path)
    finals(study)
    print(f"set-up                 {time.perf_counter() - started:.0f} s: {study.issues.count():,} reports")
    rater = add_rater(study, name="tfidf", kind="builtin")
    started = time.perf_counter()
    done = run(start_run(rater, send=False))
    seconds = time.perf_counter() - started
    print(f"the job, on PostgreSQL {seconds:.1f} s (goal: under 60 s): {done.done:,} labels written; {done.message}")
    started = time.perf_counter()
    figures = measurement(rater, level="type")
    print(f"measured at type level {time.perf_counter() - started:.1f} s: {figures['reports']:,} reports, "
          f"{len(figures['humans'])} raters")
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"peak memory            {peak:.0f} MB (the whole process, the study's set-up included)")


if __name__ == "__main__":
    main()
