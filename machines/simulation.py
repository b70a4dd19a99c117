"""Pure: does a prediction-powered share keep its promise on a real study? A seeded simulation with known truth:
every report's final label is the truth and a machine has labeled every report; in each replication people
"label" a share of the reports (a uniform random sample, or the confidence-driven design's), and every share of
a level is estimated from people's labels alone and prediction-powered. The figures: how often each 95 %
interval covered the share of all final labels, how wide it was against people's alone, and how many people's
labels each design needs to be as narrow as people's alone at a given budget.

An interval is counted where the tables would show it: where the labeled reports hold at least `MIN_EACH_SIDE`
of the category and as many of the others, below which a normal interval is not to be trusted."""
from __future__ import annotations

import csv
import gzip
import io
import json
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from stats import ppi
from stats.lazy_numpy import np

from .classifier import Settings, features, rate_rows_sure

BUDGETS = (0.05, 0.10, 0.20)
MIN_EACH_SIDE = 5
LEVELS = ("type", "theme")


@dataclass
class Arm:
    """A study's reports as the simulation needs them: per level, each report's final label and the machine's,
    as category numbers, and the machine's confidence in its label."""

    name: str
    truth: dict[str, np.ndarray]  # level -> category number of the final label, one per report
    machine: dict[str, np.ndarray]  # level -> category number of the machine's label
    categories: dict[str, list[str]]
    confidence: np.ndarray
    notes: list[str] = field(default_factory=list)

    @property
    def reports(self) -> int:
        return len(self.confidence)

    def indicators(self, level: str):
        """Each report's final label and the machine's as rows of 0/1 columns, one per category (kept)."""
        kept = self.__dict__.setdefault("_indicators", {})
        if level not in kept:
            k = len(self.categories[level])
            kept[level] = (_one_hot(self.truth[level], k), _one_hot(self.machine[level], k))
        return kept[level]


def arm(name: str, final: Sequence[tuple[str, str]], machine: Sequence[tuple[str, str]],
        confidence: Sequence[float]) -> Arm:
    """An arm from (type, theme) pairs: each report's final label and the machine's."""
    truth, rated, categories = {}, {}, {}
    for at, level in enumerate(LEVELS):
        names = sorted({pair[at] for pair in final} | {pair[at] for pair in machine})
        number = {c: i for i, c in enumerate(names)}
        truth[level] = np.array([number[pair[at]] for pair in final])
        rated[level] = np.array([number[pair[at]] for pair in machine])
        categories[level] = names
    return Arm(name, truth, rated, categories, np.asarray(confidence, dtype=float))


def _one_hot(numbers, k: int):
    out = np.zeros((len(numbers), k))
    out[np.arange(len(numbers)), numbers] = 1.0
    return out


@dataclass
class Tally:
    """What the replications of one arm, level, design and budget add up to."""

    covered: float = 0
    shown: float = 0
    counted: float = 0
    width: float = 0  # summed over shown intervals
    width_all: float = 0  # summed over every category, an interval not shown as 1
    width_alone: float = 0  # people's alone, on the same reports, where the design is uniform
    wider: int = 0  # intervals wider than people's alone on the same reports
    category_width: object = None  # per category, summed over replications (an interval not shown as 1)
    category_shown: object = None  # per category, the replications whose interval was shown
    per_category: dict[int, list[int]] = field(default_factory=dict)  # category -> [covered, shown]

    def add(self, value, se, truth, shown, alone_se=None) -> None:
        z = ppi.z_value(ppi.CONFIDENCE)
        hit = np.abs(value - truth) <= z * se
        self.covered += float(hit[shown].sum())
        self.shown += float(shown.sum())
        self.counted += len(shown)
        self.width += float((2 * z * se)[shown].sum())
        # An interval not shown tells a reader nothing: it counts as the whole of [0, 1].
        widths = np.where(shown, 2 * z * se, 1.0)
        self.width_all += float(widths.sum())
        self.category_width = widths if self.category_width is None else self.category_width + widths
        self.category_shown = shown.astype(int) + (0 if self.category_shown is None else self.category_shown)
        if alone_se is not None:
            self.width_alone += float((2 * z * alone_se)[shown].sum())
            self.wider += int((se > alone_se * (1 + 1e-12))[shown].sum())
        for k in np.flatnonzero(shown):
            tally = self.per_category.setdefault(int(k), [0, 0])
            tally[0] += int(hit[k])
            tally[1] += 1

    def figures(self) -> dict:
        worst = min((c / s for c, s in self.per_category.values() if s >= 20), default=None)
        return {
            "coverage": self.covered / self.shown if self.shown else None,
            "worst_category_coverage": worst,
            "shown": self.shown / self.counted if self.counted else None,
            "mean_width": self.width / self.shown if self.shown else None,
            "mean_width_all": self.width_all / self.counted if self.counted else None,
            "width_ratio": self.width / self.width_alone if self.width_alone else None,
            "wider": self.wider,
        }


def _shown(y) -> np.ndarray:
    positives = y.sum(axis=0)
    return (positives >= MIN_EACH_SIDE) & (len(y) - positives >= MIN_EACH_SIDE)


def _uniform(arm: Arm, level: str, budget: int, rng, tallies: dict) -> None:
    truth, machine = arm.indicators(level)
    order = rng.permutation(arm.reports)
    labeled, rest = order[:budget], order[budget:]
    y = truth[labeled]
    shown = _shown(y)
    value, se, _ = ppi.ppi_columns(y, machine[labeled], machine[rest])
    alone_se = y.std(axis=0) / np.sqrt(len(y))
    share = truth.mean(axis=0)
    tallies["ppi"].add(value, se, share, shown, alone_se)
    tallies["people"].add(y.mean(axis=0), alone_se, share, shown)


def _confident(arm: Arm, level: str, budget: int, weights, rng, tallies: dict) -> None:
    truth, machine = arm.indicators(level)
    _, labeled, chance = ppi.sequential_poisson(weights, budget, rng)
    value, se, _ = ppi.active_columns(truth, machine, labeled, chance)
    tallies["ppi_confidence"].add(value, se, truth.mean(axis=0), _shown(truth[labeled]))


def weights_of(arm: Arm):
    """The confidence-driven design's relative chances: √(1 − confidence), mixed with the uniform design."""
    return ppi.design_weights(np.sqrt(np.clip(1 - arm.confidence, 0.0, 1.0)))


def simulate(arm: Arm, replications: int, budgets: Sequence[float] = BUDGETS, seed: int = 0) -> dict:
    """Per level and budget: coverage, width and how often PPI was wider than people's alone, for people's labels
    alone and PPI under the uniform design and PPI under the confidence-driven one."""
    weights = weights_of(arm)
    out: dict = {}
    for level in LEVELS:
        for fraction in budgets:
            budget = max(2, round(fraction * arm.reports))
            rng = np.random.default_rng([seed, int(fraction * 1000), LEVELS.index(level)])
            tallies = {"people": Tally(), "ppi": Tally(), "ppi_confidence": Tally()}
            for _ in range(replications):
                _uniform(arm, level, budget, rng, tallies)
                _confident(arm, level, budget, weights, rng, tallies)
            out[(level, fraction)] = {design: t.figures() for design, t in tallies.items()} | {"labels": budget}
    return out


def labels_for_width(arm: Arm, level: str, fraction: float, replications: int, seed: int = 0,
                     steps: int = 12) -> dict:
    """How many people's labels each design needs for intervals as narrow, on average over the level's shares,
    as people's alone with `fraction` of the reports labeled (more than that where a design does worse: "saved"
    is then below 0). The shares compared are those people's labels alone give an interval at that budget;
    where a design gives none, it counts as the whole of [0, 1]. Found by bisection on the simulated mean width,
    which falls as labels grow, below the budget or above it; `steps` halvings leave the count within about one
    per cent."""
    weights = weights_of(arm)
    budget = max(2, round(fraction * arm.reports))

    def width(labels: int, design: str) -> float:
        # The same draws at every count (common random numbers): the samples are nested as a queue's first parts
        # are, so the widths fall smoothly with the count and designs are compared on the same luck.
        rng = np.random.default_rng([seed, LEVELS.index(level), 7])
        tallies = {"people": Tally(), "ppi": Tally(), "ppi_confidence": Tally()}
        for _ in range(replications):
            if design == "ppi_confidence":
                _confident(arm, level, labels, weights, rng, tallies)
            else:
                _uniform(arm, level, labels, rng, tallies)
        return tallies[design]

    # The shares compared: those people's labels alone give an interval for in most replications at the budget.
    alone = width(budget, "people")
    compared = alone.category_shown >= replications / 2

    def mean_width(tally: Tally) -> float:
        return float((tally.category_width[compared] / replications).mean())

    target = mean_width(alone)
    out = {"people": {"labels": budget, "width": target}}
    for design in ("ppi", "ppi_confidence"):
        # The count lies below the budget where the design is at least as narrow there, else above it.
        low, high = (2, budget) if mean_width(width(budget, design)) <= target else (budget, arm.reports)
        if mean_width(width(high, design)) > target:
            out[design] = {"labels": None, "width": None, "saved": None}
            continue
        for _ in range(steps):
            middle = round((low * high) ** 0.5)
            if middle in (low, high):
                break
            if mean_width(width(middle, design)) <= target:
                high = middle
            else:
                low = middle
        out[design] = {"labels": high, "width": mean_width(width(high, design)), "saved": 1 - high / budget}
    return out


def _pair(code: str) -> tuple[str, str]:
    """A theme code of the study's release ("C.6") as (type, theme): the type is its letter."""
    return code.split(".")[0], code


def release_rows(path: Path) -> list[dict]:
    """The rows of the study's release (Issue_URL, Label1..Label7, Final_Label), gzipped or not."""
    opened = gzip.open(path) if str(path).endswith(".gz") else open(path, "rb")
    with opened as raw:
        return list(csv.DictReader(io.TextIOWrapper(raw, encoding="utf-8")))


def jury_arm(rows: list[dict]) -> Arm:
    """A stand-in machine as good as the study's own people: the plurality of three of its seven annotators
    (annotator 1 breaking ties), sure as the share of the three that agree. The final label was drawn from all
    seven, these three among them, so this machine is better than one that never saw the reports' labellers."""
    final, machine, sure = [], [], []
    for row in rows:
        votes = [row["Label1"], row["Label2"], row["Label3"]]
        counts = Counter(votes)
        top = max(counts.values())
        chosen = next(v for v in votes if counts[v] == top)
        final.append(_pair(row["Final_Label"]))
        machine.append(_pair(chosen))
        sure.append(top / 3)
    made = arm("release, a jury of three of its annotators", final, machine, sure)
    made.notes.append("the machine's label: the plurality of annotators 1 to 3; truth: the final label of all seven")
    return made


def _where(url: str) -> str:
    """What the release says of a report besides its labels: its host and repository."""
    found = re.match(r"https?://([^/]+)/([^/]+)/([^/]+)/", url)
    return " ".join(found.groups()) if found else url


def builtin_arm(name: str, texts: Sequence[str], final: Sequence[tuple[str, str]], folds: int = 5,
                seed: int = 0) -> Arm:
    """The built-in model, cross-fitted on the final labels (no report rated by a model that saw its label)."""
    labels = [(t, theme, None) for t, theme in final]
    settings = Settings(folds=folds, seed=seed)
    made = rate_rows_sure(features(texts, settings), labels, settings)
    rated, sure = made.labels, made.sure
    machine = [(r[0], r[1] or r[0]) if r else ("", "") for r in rated]
    return arm(name, list(final), machine, [s or 0.0 for s in sure])


def release_builtin_arm(rows: list[dict]) -> Arm:
    """The built-in model on the release, which holds no report's text: it reads each report's host and
    repository only, so it knows little more than each repository's mix of labels."""
    made = builtin_arm("release, the built-in model (repository only)", [_where(r["Issue_URL"]) for r in rows],
                       [_pair(r["Final_Label"]) for r in rows])
    made.notes.append("the release holds no text: the model reads each report's host and repository")
    return made


def text_arm(reports: Path, labels: Path) -> Arm:
    """The built-in model on reports with their text (title and body) and the release's final labels."""
    opened = gzip.open(reports, "rt", encoding="utf-8") if str(reports).endswith(".gz") else open(reports)
    with opened as f:
        text = {r["html_url"]: f"{r['title']}\n{r.get('body') or ''}" for r in map(json.loads, f)}
    rows = [r for r in release_rows(labels) if r["Issue_URL"] in text]
    made = builtin_arm("vLLM reports with their text, the built-in model", [text[r["Issue_URL"]] for r in rows],
                       [_pair(r["Final_Label"]) for r in rows])
    made.notes.append(f"{len(rows)} reports of vLLM with title and body")
    return made
