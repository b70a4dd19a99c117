"""Benchmark: what each operation costs per report as the corpus grows, 10,000 to 1,000,000 reports × 7 labels.

    python bench/bench_growth.py --generator GEN.py [--sizes 10000,40000,160000,1000000] [--database-url …]

For each size, in one sitting: the shared generator's corpus of that many issues (kept in bench-out/), then each
operation in a child process of its own on a fresh PostgreSQL database built once per size, so that each peak
memory is the operation's own (VmHWM of the child; the ingest's worker processes apart):

- ingest: the corpus into one source with the study's PyTorch keywords (floor: parse the lines and COPY their
  fields, as `make bench-ingest`);
- import of labels: a wide label file of every report × 7 raters and a final label (`import_labels`);
- the agreement dashboard at theme and at sub-theme level over those labels (floor: the same figures from the
  labels in memory);
- the labeling round trip (next report, then a label, over HTTP through gunicorn) for one annotator and for
  7 at once, on the labeling benchmark's study over the same reports: 7 labelers, every report labeled by each
  but the last 600, and every report summarised, as the method's step 5 has it before labeling (a round trip
  on a study without summaries shows a page that reads less than annotators' pages read);
- the corpus export as CSV and as JSON Lines (floor: PostgreSQL's COPY of the same rows and columns) and the
  replication package;
- the built-in machine rater's whole job;
- backup (`export_study`) and restore (`import_study` into an empty database);
- and, once, apart from the sizes: a machine's figures against panels of 7, 107 and 200 annotators over 2,000
  reports, per annotator (`--panels-only` runs just these).

Prints, per size and operation: the time, microseconds per report, peak memory and the multiple of the floor;
then the time per report at each size as a multiple of that at 40,000 (the target: within 1.3× at 1,000,000).
Writes the figures to bench-out/growth.json and the curve to bench-out/growth.svg (and, with --chart, to that
path as well).
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from common import DEFAULT_URL, ROOT

OUT = ROOT / "bench-out"
RATERS = 7
OPERATIONS = [
    ("ingest", "ingest"), ("import_labels", "import of labels"), ("dashboard_theme", "dashboard, theme"),
    ("dashboard_sub_theme", "dashboard, sub-theme"), ("label_one", "round trip, 1 annotator (p95)"),
    ("label_seven", "round trip, 7 at once (p95)"), ("export_csv", "export CSV"), ("export_jsonl", "export JSONL"),
    ("package", "replication package"), ("rater", "built-in rater"), ("backup", "backup"), ("restore", "restore"),
]
# Round trips are per request, not per corpus: their row shows milliseconds, and their growth is p95 over p95.
PER_REQUEST = {"label_one", "label_seven"}


def _status_mb(field: str) -> float:
    status = Path("/proc/self/status").read_text()
    return int(next(line.split()[1] for line in status.splitlines() if line.startswith(field))) / 1024


def _reset_peak() -> None:
    """The peak resident memory starts again from what the process holds now, so that the figure is the
    operation's own and not the set-up's before it (migrate alone reaches about 250 MB)."""
    Path("/proc/self/clear_refs").write_text("5")


def _vm_hwm_mb() -> float:
    return _status_mb("VmHWM")


# --- the steps, each run in a child process -------------------------------------------------------------------

def step_ingest(corpus: str, url: str) -> dict:
    from common import setup_django

    setup_django(url)
    import resource

    from bench_ingest import copy_floor

    from ingest.models import Source
    from ingest.services.files import import_file
    from ingest.services.keywords import SHIPPED_LISTS, load_keyword_list

    source = Source.objects.create(full_name="bench-org/bench-repo", display_name="Bench", kind=Source.Kind.FRAMEWORK,
                                   keyword_list=load_keyword_list(SHIPPED_LISTS / "pytorch.json"))
    _reset_peak()
    started = time.perf_counter()
    import_file(corpus, source, file_format="jsonl")
    seconds = time.perf_counter() - started
    peak = _vm_hwm_mb()
    workers = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    return {"ingest": {"seconds": seconds, "floor": copy_floor(corpus), "peak_mb": peak, "workers_mb": workers}}


def step_study(corpus: str, url: str) -> dict:
    """Set-up, not measured: the labeling study and its final labels, then statistics for the planner."""
    from common import setup_django

    setup_django(url, fresh=False)
    from bench_export import finals
    from bench_label import make_study

    from ingest.models import Source

    started = time.perf_counter()
    study, _, _ = make_study(Source.objects.get(full_name="bench-org/bench-repo"))
    finals(study)
    seconds = time.perf_counter() - started
    from django.db import connection

    from annotation.models import Assignment, FinalLabel, Label

    with connection.cursor() as cursor:  # as autovacuum would have (the benchmark server may run without it)
        for model in (Label, Label.history.model, FinalLabel, Assignment):
            cursor.execute(f"VACUUM (ANALYZE) {model._meta.db_table}")
    return {"study": {"seconds": seconds}}


def step_import_labels(corpus: str, url: str, reports: int) -> dict:
    from common import setup_django

    setup_django(url, fresh=False)
    from bench_agreement import write_corpus
    from django.db import connection

    from annotation.models import FinalLabel, Label, Queue
    from corpus.imports import import_labels

    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "labels.csv"
        write_corpus(path, reports, RATERS)
        _reset_peak()
        started = time.perf_counter()
        summary = import_labels("Bench agreement", path, prefix="rater-")
        seconds = time.perf_counter() - started
    assert summary.labels_new == reports * RATERS, summary
    peak = _vm_hwm_mb()
    # As autovacuum would have, before anyone opens the dashboard (the benchmark server may run without it).
    with connection.cursor() as cursor:
        for model in (Label, FinalLabel, Queue):
            cursor.execute(f"VACUUM (ANALYZE) {model._meta.db_table}")
    return {"import_labels": {"seconds": seconds, "peak_mb": peak}}


def step_dashboard(corpus: str, url: str, level: str) -> dict:
    from common import setup_django

    setup_django(url, fresh=False)
    import scipy.stats  # noqa: F401  (a worker imports these once, not per dashboard)
    import statsmodels.stats.inter_rater  # noqa: F401

    from agreement.reports import agreement_from, read_round, study_agreement
    from annotation.models import Study

    round = Study.objects.get(name="Bench agreement").rounds.get()
    _reset_peak()
    started = time.perf_counter()
    study_agreement(round, level)
    seconds = time.perf_counter() - started
    peak = _vm_hwm_mb()
    read = read_round(round)
    started = time.perf_counter()
    agreement_from(read, level)
    return {f"dashboard_{level}": {"seconds": seconds, "floor": time.perf_counter() - started, "peak_mb": peak}}


def step_label(corpus: str, url: str, round_trips: int) -> dict:
    os.environ.update(ALLOWED_HOSTS="testserver,127.0.0.1", SECURE_SSL_REDIRECT="0")
    from common import setup_django

    setup_django(url, fresh=False)
    from bench_label import measure_concurrent
    from django.contrib.auth import get_user_model
    from django.core.management import call_command

    from annotation.models import Study
    from taxonomy.models import Category

    call_command("collectstatic", "--noinput", verbosity=0)
    study = Study.objects.get(name="Bench study")
    labelers = list(get_user_model().objects.filter(username__in=["lead", *(f"ann{i}" for i in range(1, RATERS))])
                    .order_by("id"))
    themes = list(Category.objects.filter(level=Category.Level.THEME).values_list("pk", "parent_id"))
    one = measure_concurrent(study, labelers[1:2], themes, round_trips, 2, 4)
    seven = measure_concurrent(study, labelers, themes, round_trips, 2, 4)
    return {"label_one": {"p95_ms": one["p95_ms"], "floor_ms": one["cpu_ms"]},
            "label_seven": {"p95_ms": seven["p95_ms"], "floor_ms": seven["cpu_ms"]}}


def step_export(corpus: str, url: str, fmt: str) -> dict:
    from common import setup_django

    setup_django(url, fresh=False)
    from bench_export import copy_floor
    from django.contrib.auth import get_user_model
    from django.core.management import call_command

    from annotation.models import Study

    study = Study.objects.get(name="Bench study")
    with tempfile.TemporaryDirectory() as folder:
        output = Path(folder) / ("replication.zip" if fmt == "package" else f"corpus.{fmt}")
        _reset_peak()
        started = time.perf_counter()
        if fmt == "package":
            # As an admin: the lead labels blind in the bench's open round, and a blind lead may not export.
            get_user_model().objects.get_or_create(username="bench-admin",
                                                   defaults={"is_staff": True, "is_superuser": True})
            call_command("replication_package", "Bench study", str(output), "--as", "bench-admin")
        else:
            call_command("export_corpus", "Bench study", "--format", fmt, "--output", str(output))
        seconds = time.perf_counter() - started
        peak = _vm_hwm_mb()
        floor = copy_floor(study, Path(folder) / "floor.csv") if fmt != "package" else None
    name = "package" if fmt == "package" else f"export_{fmt}"
    return {name: {"seconds": seconds, "peak_mb": peak, **({"floor": floor} if floor else {})}}


def step_rater(corpus: str, url: str) -> dict:
    from common import setup_django

    setup_django(url, fresh=False)
    from annotation.models import Study
    from machines.services.raters import add_rater
    from machines.services.runs import run, start_run

    rater = add_rater(Study.objects.get(name="Bench study"), name="tfidf", kind="builtin")
    _reset_peak()
    started = time.perf_counter()
    done = run(start_run(rater, send=False))
    assert done.status == "succeeded", done.message
    return {"rater": {"seconds": time.perf_counter() - started, "peak_mb": _vm_hwm_mb()}}


def step_backup(corpus: str, url: str, path: str) -> dict:
    from common import setup_django

    setup_django(url, fresh=False)
    from django.core.management import call_command

    _reset_peak()
    started = time.perf_counter()
    call_command("export_study", "Bench study", path)
    return {"backup": {"seconds": time.perf_counter() - started, "peak_mb": _vm_hwm_mb(),
                       "size_mb": Path(path).stat().st_size / 1e6}}


def step_restore(corpus: str, url: str, path: str) -> dict:
    from common import setup_django

    setup_django(url)  # an empty database, migrated
    from django.core.management import call_command

    _reset_peak()
    started = time.perf_counter()
    call_command("import_study", path)
    return {"restore": {"seconds": time.perf_counter() - started, "peak_mb": _vm_hwm_mb()}}


STEPS = {"ingest": step_ingest, "study": step_study, "import_labels": step_import_labels,
         "dashboard": step_dashboard, "label": step_label, "export": step_export, "rater": step_rater,
         "backup": step_backup, "restore": step_restore}


# --- the parent: sizes, children, table and chart ---------------------------------------------------------------

def _child(step: str, corpus: str, url: str, *extra) -> dict:
    command = [sys.executable, __file__, "--step", step, "--corpus", corpus, "--database-url", url,
               *[str(x) for x in extra]]
    result = subprocess.run(command, cwd=ROOT, capture_output=True, text=True)
    if result.returncode:
        sys.stderr.write(result.stdout[-3000:] + result.stderr[-5000:])
        raise SystemExit(f"{step} failed at {corpus}")
    return json.loads(result.stdout.strip().splitlines()[-1])


def corpus_of(size: int, generator: str) -> str:
    path = OUT / f"issues-{size}.jsonl"
    if not path.exists():
        OUT.mkdir(exist_ok=True)
        subprocess.run([sys.executable, generator, "--n", str(size), "--out", str(path)], check=True)
    return str(path)


def measure(size: int, generator: str, url: str, round_trips: int) -> dict:
    corpus = corpus_of(size, generator)
    figures: dict = {}
    started = time.perf_counter()
    figures |= _child("ingest", corpus, url)
    figures |= _child("import_labels", corpus, url, size)
    for level in ("theme", "sub_theme"):
        figures |= _child("dashboard", corpus, url, level)
    figures |= _child("study", corpus, url)
    figures |= _child("label", corpus, url, round_trips)
    for fmt in ("csv", "jsonl", "package"):
        figures |= _child("export", corpus, url, fmt)
    figures |= _child("rater", corpus, url)
    with tempfile.TemporaryDirectory() as folder:
        backup = str(Path(folder) / "study.json.gz")
        figures |= _child("backup", corpus, url, backup)
        figures |= _child("restore", corpus, url.rsplit("/", 1)[0] + "/concord_bench_restore", backup)
    figures["sitting_seconds"] = time.perf_counter() - started
    return figures


def per_report_us(figures: dict, name: str, size: int) -> float | None:
    cell = figures.get(name)
    if not cell:
        return None
    return cell["p95_ms"] * 1000 if name in PER_REQUEST else 1e6 * cell["seconds"] / size


def table(results: dict[int, dict]) -> str:
    sizes = sorted(results)
    lines = ["| operation | " + " | ".join(f"{s:,} reports" for s in sizes) + " | 1 M ÷ 40 k per report |",
             "| --- |" + " --- |" * (len(sizes) + 1)]
    for name, title in OPERATIONS:
        cells = []
        for size in sizes:
            cell = results[size].get(name)
            if not cell:
                cells.append("")
                continue
            if name in PER_REQUEST:
                text = f"p95 {cell['p95_ms']:.1f} ms ({cell['floor_ms']:.1f} ms server CPU)"
            else:
                text = f"{cell['seconds']:.1f} s, {per_report_us(results[size], name, size):.0f} µs/report"
                if cell.get("floor"):
                    text += f", {cell['seconds'] / cell['floor']:.1f}× floor"
                if cell.get("peak_mb"):
                    text += f", peak {cell['peak_mb']:.0f} MB"
            cells.append(text)
        growth = ""
        if 40000 in results and 1000000 in results:
            base, top = per_report_us(results[40000], name, 40000), per_report_us(results[1000000], name, 1000000)
            growth = f"{top / base:.2f}×" if base and top else ""
        lines.append(f"| {title} | " + " | ".join(cells) + f" | {growth} |")
    return "\n".join(lines)


def chart(results: dict[int, dict]) -> str:
    """An SVG line chart: time per report at each size, as a multiple of that at 40,000 (the target's base)."""
    sizes = sorted(results)
    base_size = 40000 if 40000 in results else sizes[0]
    width, height, left, bottom, top, right = 760, 420, 60, 50, 40, 230
    lines, ymax = [], 2.0
    series = []
    for name, title in OPERATIONS:
        points = [(s, per_report_us(results[s], name, s)) for s in sizes]
        points = [(s, v) for s, v in points if v]
        base = per_report_us(results[base_size], name, base_size)
        if len(points) < 2 or not base:
            continue
        series.append((title, [(s, v / base) for s, v in points]))
        ymax = max(ymax, *(r for _, r in series[-1][1]))
    import math

    lo, hi = math.log10(sizes[0]), math.log10(sizes[-1]) if len(sizes) > 1 else math.log10(sizes[0]) + 1

    def x(size: float) -> float:
        return left + (math.log10(size) - lo) / (hi - lo or 1) * (width - left - right)

    def y(ratio: float) -> float:
        return height - bottom - ratio / ymax * (height - bottom - top)

    colours = ["#1b6ca8", "#d1495b", "#66a182", "#edae49", "#00798c", "#8d6a9f", "#2e4057", "#c36f09",
               "#6c757d", "#a4243b", "#3d5a80", "#7d8491"]
    lines.append(f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
                 'font-family="sans-serif" font-size="11">')
    lines.append(f'<rect width="{width}" height="{height}" fill="white"/>')
    for ratio in (0.5, 1, 1.3, 2) + ((ymax,) if ymax > 2 else ()):
        if ratio <= ymax:
            target = ratio == 1.3  # the target: time per report at most 1.3× that at 40,000
            lines.append(f'<line x1="{left}" x2="{width - right}" y1="{y(ratio):.1f}" y2="{y(ratio):.1f}" '
                         f'stroke="{"#999" if target else "#ddd"}" stroke-dasharray="{"4 3" if target else ""}"/>')
            lines.append(f'<text x="{left - 6}" y="{y(ratio) + 4:.1f}" text-anchor="end">{ratio:.1f}×</text>')
    for s in sizes:
        lines.append(f'<text x="{x(s):.1f}" y="{height - bottom + 16}" text-anchor="middle">{s:,}</text>')
    lines.append(f'<text x="{(left + width - right) / 2}" y="{height - 12}" text-anchor="middle">reports (7 labels '
                 'each), log scale</text>')
    lines.append(f'<text x="14" y="16">time per report ÷ that at {base_size:,} (round trips: p95 ÷ p95)</text>')
    for i, (title, points) in enumerate(series):
        colour = colours[i % len(colours)]
        path = " ".join(f"{x(s):.1f},{y(r):.1f}" for s, r in points)
        lines.append(f'<polyline fill="none" stroke="{colour}" stroke-width="2" points="{path}"/>')
        lines.append(f'<text x="{width - right + 10}" y="{top + 14 + 16 * i}" fill="{colour}">{title}</text>')
    lines.append("</svg>")
    return "\n".join(lines) + "\n"


# Peak memory each operation may reach, in MB: a fixed part (the process with its libraries, a batch, a buffer)
# and what it costs per 1,000 reports (7 labels each). Those with no cost per report hold the same whatever the
# study's size: the corpus, the labels' file, the backup are streamed. Those with one hold what their figures
# read, which grows with the study (docs/performance.md, "What grows", says why for each).
MEMORY_BOUNDS = {
    "ingest": (200, 0), "import_labels": (300, 0), "backup": (300, 0.25),
    "dashboard_theme": (300, 0.5), "dashboard_sub_theme": (300, 0.9), "export_csv": (300, 0.5),
    "export_jsonl": (300, 0.5), "package": (300, 1.2), "restore": (300, 2.4), "rater": (500, 12),
}


def memory_bound(name: str, size: int) -> float | None:
    if name not in MEMORY_BOUNDS:
        return None
    fixed, per_thousand = MEMORY_BOUNDS[name]
    return fixed + per_thousand * size / 1000


def memory_check(results: dict[int, dict]) -> bool:
    """Prints each operation's peak against its bound; true when every one is within."""
    print("\nPeak memory against its bound (MB: fixed + per 1,000 reports):")
    ok = True
    for name, title in OPERATIONS:
        fixed_cost = MEMORY_BOUNDS.get(name)
        if fixed_cost is None:
            continue
        cells = []
        for size in sorted(results):
            peak = (results[size].get(name) or {}).get("peak_mb")
            if peak is None:
                continue
            bound = memory_bound(name, size)
            within = peak <= bound
            ok &= within
            cells.append(f"{size:,}: {peak:.0f} {'≤' if within else '>'} {bound:.0f}{'' if within else ' OVER'}")
        if cells:
            kind = "bounded" if not fixed_cost[1] else f"{fixed_cost[1]:g} MB per 1,000 reports"
            print(f"  {title} ({fixed_cost[0]} MB, {kind}): " + "; ".join(cells))
    print(f"  {'every peak within its bound' if ok else 'a peak is OVER its bound'}")
    return ok


PANELS = (7, 107, 200)
PANEL_REPORTS = 2000
# The figures of a machine against its panel may cost at most this many times per annotator at 200 annotators
# as at 7 (linear in annotators: within noise of 1).
PANEL_CEILING = 1.3


def panel_shape(reports: int = PANEL_REPORTS) -> list[tuple[int, float]]:
    """A machine rater's figures (`machines.measures.measure`, theme level) over `reports` reports labeled by 7,
    107 and 200 annotators each: seconds, which must grow with annotators, not annotators squared."""
    import random

    sys.path.insert(0, str(ROOT))
    from machines.measures import measure

    chains = [("C", "C.1", None), ("C", "C.2", None), ("B", "B.1", None), ("A", "A.1", None)]
    rng = random.Random(1)
    out = []
    for annotators in PANELS:
        humans = {f"p{a}": {r: rng.choice(chains) for r in range(reports)} for a in range(annotators)}
        machine = {r: rng.choice(chains) for r in range(reports)}
        started = time.perf_counter()
        measure(humans, {r: "C" for r in range(reports)}, machine, level="theme", type_code="C")
        out.append((annotators, time.perf_counter() - started))
    return out


def print_panel_shape() -> bool:
    shape = panel_shape()
    base = shape[0][1] / shape[0][0]
    print(f"\nA machine's figures against its panel, {PANEL_REPORTS:,} reports (per annotator, as a multiple of 7's):")
    for annotators, seconds in shape:
        print(f"  {annotators:>3} annotators: {seconds:6.2f} s, {seconds / annotators / base:.2f}×")
    worst = shape[-1][1] / shape[-1][0] / base
    print(f"  at {shape[-1][0]}: {worst:.2f}× per annotator (ceiling {PANEL_CEILING}×)"
          f" {'passes' if worst <= PANEL_CEILING else 'FAILS'}")
    return worst <= PANEL_CEILING


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--generator", help="the shared corpus generator (gen_issues.py)")
    parser.add_argument("--sizes", default="10000,40000,160000,1000000")
    parser.add_argument("--round-trips", type=int, default=100, help="per annotator")
    parser.add_argument("--database-url", default=os.environ.get("BENCH_DATABASE_URL", DEFAULT_URL))
    parser.add_argument("--chart", help="also write the SVG chart here")
    parser.add_argument("--replot", action="store_true", help="only redraw the chart from bench-out/growth.json")
    parser.add_argument("--panels-only", action="store_true",
                        help="only the machine's figures against panels of 7, 107 and 200 annotators")
    parser.add_argument("--step", choices=sorted(STEPS), help=argparse.SUPPRESS)
    parser.add_argument("--corpus", help=argparse.SUPPRESS)
    parser.add_argument("extra", nargs="*", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.step:
        extra = [int(v) if v.isdigit() else v for v in args.extra]
        print(json.dumps(STEPS[args.step](args.corpus, args.database_url, *extra)))
        return
    if args.panels_only:
        sys.exit(0 if print_panel_shape() else 1)
    results: dict[int, dict] = {}
    if args.replot:
        results = {int(size): figures for size, figures in json.loads((OUT / "growth.json").read_text()).items()}
        print(table(results))
    for size in ([] if args.replot else (int(s) for s in args.sizes.split(","))):
        results[size] = measure(size, args.generator, args.database_url, args.round_trips)
        print(f"{size:,} reports: the sitting took {results[size]['sitting_seconds']:.0f} s", flush=True)
        (OUT / "growth.json").write_text(json.dumps(results, indent=1))
        print(table(results), flush=True)
    svg = chart(results)
    (OUT / "growth.svg").write_text(svg)
    if args.chart:
        Path(args.chart).write_text(svg)
    memory_ok = memory_check(results)
    panels_ok = print_panel_shape()
    sys.exit(0 if memory_ok and panels_ok else 1)


if __name__ == "__main__":
    main()
