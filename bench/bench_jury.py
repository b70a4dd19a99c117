"""Benchmark: delegating reports to a jury of three built-in models (Ahmed et al., MSR 2025), on the study's release
and on the 974 vLLM reports whose text the tests ship.

    python bench/bench_jury.py [--json bench-out/jury.json]

Each member is the built-in model cross-fitted on the final labels (no report rated by a model that saw its
label), reading differently: single words and pairs of words, single words only, and the report's opening only,
with seeds 0, 1 and 2. The release holds no text, so there each member reads the report's host and repository.
People are the study's seven annotators. Prints, at type level, the machines' agreement with each other (the
gate, alpha >= 0.5), and for each confidence threshold the share of reports delegated (every member agreeing,
each at least that sure), the jury's accuracy there against the seven annotators' plurality (Wilson interval),
and Fleiss' kappa among the annotators on all reports and on the reports left to them (bootstrap interval) —
with the gate, and as if there were none, to show what the gate keeps out.
"""
from __future__ import annotations

import argparse
import gzip
import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

RELEASE = ROOT / "tests" / "stats" / "data" / "paper_release_labels.csv.gz"
VLLM = ROOT / "tests" / "machines" / "data"
MEMBERS = [("words-1-2", 0), ("words-1", 1), ("opening", 2)]
CONFIDENCES = (0.5, 0.6, 0.7, 0.8, 0.9)


def _num(value) -> str:
    return "—" if value is None else f"{value:.3f}"


def _jury(texts: list[str], final: list[tuple[str, str]]) -> tuple[list[list[str | None]], list[list[float]]]:
    from machines.classifier import FEATURES, Settings, features, rate_rows_sure

    votes, sure = [], []
    labels = [(t, theme, None) for t, theme in final]
    for name, seed in MEMBERS:
        settings = Settings(seed=seed, **FEATURES[name])
        # The jury decides types: each member's confidence is of the type alone.
        made = rate_rows_sure(features(texts, settings), labels, settings)
        votes.append([r[0] if r else None for r in made.labels])
        sure.append([c or 0.0 for c in made.sure_of_type])
    return votes, sure


def _measure(name: str, people, votes, sure) -> dict:
    from stats.jury import ALPHA_MIN, cost, delegate

    print(f"\n{name}: {len(people):,} reports, {len(people[0])} annotators, a jury of {len(votes)} built-in models")
    out = {"reports": len(people), "rows": []}
    for gate in (ALPHA_MIN, 0.0):
        for threshold in CONFIDENCES:
            made = delegate(votes, sure, alpha_min=gate, confidence_min=threshold)
            found = cost(people, made)
            if gate and threshold == CONFIDENCES[0]:
                print(f"  machine-machine alpha {_num(made.alpha)}: {'fit' if made.fit else 'not fit'} "
                      f"(the gate needs {ALPHA_MIN})")
                print(f"  {'gate':>5} {'conf.':>5} {'delegated':>16} {'accuracy [95 % CI]':>24} "
                      f"{'kappa, all [95 % CI]':>26} {'kappa, left to people':>26}")
            acc, every, left = found.accuracy, found.kappa_all, found.kappa_people
            print(f"  {gate:>5} {threshold:>5} {found.delegated:>7,} ({_num(found.share)}) "
                  f"{_num(acc.value):>7} [{_num(acc.low)}, {_num(acc.high)}] "
                  f"{_num(every.value):>7} [{_num(every.ci_low)}, {_num(every.ci_high)}] "
                  f"{_num(left.value):>7} [{_num(left.ci_low)}, {_num(left.ci_high)}]")
            out["machine_alpha"] = made.alpha
            out["rows"].append({"gate": gate, "confidence": threshold, "delegated": found.delegated,
                                "share": found.share, "accuracy": [acc.value, acc.low, acc.high, acc.n],
                                "kappa_all": [every.value, every.ci_low, every.ci_high, every.n_reports],
                                "kappa_left": [left.value, left.ci_low, left.ci_high, left.n_reports]})
    return out


def main() -> None:
    from machines import simulation

    parser = argparse.ArgumentParser()
    parser.add_argument("--json", default=str(ROOT / "bench-out" / "jury.json"))
    args = parser.parse_args()
    started = time.time()
    report = {}
    rows = simulation.release_rows(RELEASE)
    people = [[row[f"Label{n}"].split(".")[0] for n in range(1, 8)] for row in rows]
    final = [simulation._pair(row["Final_Label"]) for row in rows]
    votes, sure = _jury([simulation._where(row["Issue_URL"]) for row in rows], final)
    report["release"] = _measure("the release (each member reads the report's repository only)", people, votes,
                                 sure)
    with gzip.open(VLLM / "vllm-labeled-974.jsonl.gz", "rt", encoding="utf-8") as f:
        text = {r["html_url"]: f"{r['title']}\n{r.get('body') or ''}" for r in map(json.loads, f)}
    rows = [r for r in simulation.release_rows(VLLM / "vllm-paper-labels-974.csv") if r["Issue_URL"] in text]
    people = [[row[f"Label{n}"].split(".")[0] for n in range(1, 8)] for row in rows]
    votes, sure = _jury([text[r["Issue_URL"]] for r in rows], [simulation._pair(r["Final_Label"]) for r in rows])
    report["vllm"] = _measure("the vLLM reports with their text", people, votes, sure)
    print(f"\n{time.time() - started:.0f} s")
    Path(args.json).parent.mkdir(parents=True, exist_ok=True)
    Path(args.json).write_text(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
