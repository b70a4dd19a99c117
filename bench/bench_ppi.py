"""Benchmark: prediction-powered shares on the study's release, the full seeded simulation.

    python bench/bench_ppi.py [--replications 500] [--seed 0] [--json bench-out/ppi.json]

The study's final labels are the truth; in each replication people label 5, 10 or 20 % of the reports, a
uniform random sample or the confidence-driven design's, and every share of the type and theme levels is
estimated from people's labels alone and prediction-powered. Three machines: a jury of three of the study's
annotators (a machine as good as its people), the built-in model cross-fitted on the release (which holds no
text, so it reads each report's repository only), and the built-in model on the 974 vLLM reports whose text
the tests ship. Prints, per machine, level and budget, the coverage of the share of all final labels, the
intervals' width against people's alone, and the people's labels each design needs to be as narrow as people's
alone with a tenth of the reports labeled.
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

RELEASE = ROOT / "tests" / "stats" / "data" / "paper_release_labels.csv.gz"
VLLM = ROOT / "tests" / "machines" / "data"


def _pct(value) -> str:
    return "—" if value is None else f"{100 * value:.1f} %"


def main() -> None:
    from machines import simulation

    parser = argparse.ArgumentParser()
    parser.add_argument("--replications", type=int, default=500)
    parser.add_argument("--width-replications", type=int, default=100)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", default=str(ROOT / "bench-out" / "ppi.json"))
    args = parser.parse_args()
    started = time.time()
    rows = simulation.release_rows(RELEASE)
    arms = [simulation.jury_arm(rows), simulation.release_builtin_arm(rows),
            simulation.text_arm(VLLM / "vllm-labeled-974.jsonl.gz", VLLM / "vllm-paper-labels-974.csv")]
    report = []
    for arm in arms:
        print(f"\n{arm.name}: {arm.reports:,} reports; {'; '.join(arm.notes)}")
        for level in simulation.LEVELS:
            right = float((arm.truth[level] == arm.machine[level]).mean())
            print(f"  {level}: the machine's label is the final label on {_pct(right)} of reports")
        figures = simulation.simulate(arm, args.replications, seed=args.seed)
        print(f"  {args.replications} replications. coverage of the 95 % intervals (worst category); mean width "
              "against people's alone, PPI on the same reports and PPI under the confidence-driven design with "
              "as many labels; PPI intervals wider than people's alone on the same reports")
        print(f"  {'level':6} {'labeled':>8} {'people':>16} {'PPI':>16} {'PPI, confidence':>17} {'width':>7} "
              f"{'conf.':>7} {'wider':>5}")
        for (level, fraction), at in figures.items():
            cells = [f"{_pct(at[d]['coverage'])} ({_pct(at[d]['worst_category_coverage'])})"
                     for d in ("people", "ppi", "ppi_confidence")]
            confident = at["ppi_confidence"]["mean_width"] / at["people"]["mean_width"]
            print(f"  {level:6} {_pct(fraction):>8} {cells[0]:>16} {cells[1]:>16} {cells[2]:>17} "
                  f"{at['ppi']['width_ratio']:>7.3f} {confident:>7.3f} {at['ppi']['wider']:>5}")
        needs = {}
        for level in simulation.LEVELS:
            need = needs[level] = simulation.labels_for_width(arm, level, 0.1, args.width_replications, args.seed)
            base = need["people"]
            print(f"  {level}: as narrow as people's alone with {base['labels']:,} labels (width {base['width']:.4f}): "
                  f"PPI with {need['ppi']['labels']:,} ({need['ppi']['width']:.4f}, {_pct(need['ppi']['saved'])} "
                  f"saved), PPI with the confidence-driven queue with {need['ppi_confidence']['labels']:,} "
                  f"({need['ppi_confidence']['width']:.4f}, {_pct(need['ppi_confidence']['saved'])} saved)")
        report.append({"arm": arm.name, "reports": arm.reports, "notes": arm.notes,
                       "figures": [{"level": lv, "fraction": fr, **at} for (lv, fr), at in figures.items()],
                       "labels_for_width": needs})
    print(f"\n{time.time() - started:.0f} s")
    Path(args.json).parent.mkdir(parents=True, exist_ok=True)
    Path(args.json).write_text(json.dumps({"replications": args.replications, "seed": args.seed, "arms": report},
                                          indent=1), encoding="utf-8")


if __name__ == "__main__":
    main()
