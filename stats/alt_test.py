"""Pure: the alternative annotator test (Calderon, Reichart and Dror, ACL 2025) — may a machine take one
annotator's place? Leave each human out in turn: on every item both the machine and the left-out human are
scored by their agreement with the remaining humans; the machine "wins" against that human when a one-sided
t-test shows the human's advantage to be below ε, the cost-benefit margin granted to the machine. The p-values
of all humans are corrected together (Benjamini–Yekutieli, as its authors do); the machine passes when it wins
against at least half of the humans. The advantage probability (how often the machine does at least as well as
a left-out human) compares machines with each other.

One departure from the authors' code: when a human's item-by-item differences are all equal, the t statistic is
undefined (their code gets NaN and counts no win); here the outcome is then certain, so p is 0 when that common
difference is below ε and 1 otherwise."""
from __future__ import annotations

from collections import Counter
from collections.abc import Hashable, Mapping
from dataclasses import dataclass

from .lazy_numpy import np

# The authors' rule of thumb for ε, by who the annotators are.
EPSILONS = {"expert": 0.2, "skilled": 0.15, "crowd": 0.1}
EPSILON_MAX = 0.5
Q_FDR = 0.05
MIN_HUMANS_PER_ITEM = 2
MIN_ITEMS_PER_HUMAN = 30  # the t-test's normality needs about this many


def epsilon_of(text: str) -> float:
    """ε as a person writes it: any number in (0, 0.5] (ValueError naming the range otherwise)."""
    try:
        value = float(str(text).strip())
    except ValueError:
        raise ValueError(f"ε is a number in (0, {EPSILON_MAX}], not {str(text)[:40]!r}") from None
    if not 0 < value <= EPSILON_MAX:
        raise ValueError(f"ε is a number in (0, {EPSILON_MAX}], not {value}")
    return value


@dataclass(frozen=True)
class HumanComparison:
    annotator: Hashable
    items: int
    advantage: float  # share of items where the machine did at least as well as this human
    p_value: float
    machine_wins: bool
    # Mean agreement with the remaining humans on those items, of the left-out human and of the machine: the
    # test is lenient by design (ε), so these say how far apart the two really are.
    human_agreement: float = 0.0
    machine_agreement: float = 0.0


@dataclass(frozen=True)
class AltTestResult:
    epsilon: float
    q: float
    comparisons: list[HumanComparison]
    skipped: list[Hashable]  # humans with too few items to test
    winning_rate: float | None  # None when no human could be tested
    advantage_probability: float | None

    @property
    def passed(self) -> bool:
        return self.winning_rate is not None and self.winning_rate >= 0.5


def _p_value(differences: np.ndarray, epsilon: float) -> float:
    if np.ptp(differences) == 0:
        return 0.0 if differences[0] < epsilon else 1.0
    from scipy.stats import ttest_1samp  # deferred: heavy, a second to import

    return float(ttest_1samp(differences, epsilon, alternative="less").pvalue)


def benjamini_yekutieli(p_values: list[float], q: float = Q_FDR) -> set[int]:
    """Indices of the hypotheses rejected at false discovery rate q under any dependence."""
    m = len(p_values)
    if not m:
        return set()
    order = np.argsort(p_values, kind="stable")
    harmonic = float(np.sum(1.0 / np.arange(1, m + 1)))
    thresholds = np.arange(1, m + 1) / m * q / harmonic
    passing = np.flatnonzero(np.asarray(p_values, dtype=float)[order] <= thresholds)
    return set() if not len(passing) else {int(i) for i in order[: passing[-1] + 1]}


def _against_the_others(machine, labels, items, tally, raters) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per item: whether the machine agrees with the other annotators at least as well as this one, and the
    share of the others each agrees with (the annotator's own label left out of the count)."""
    machine_agrees, human_agrees = [], []
    for item in items:
        own, counts, others = labels[item], tally[item], len(raters[item]) - 1
        machine_agrees.append((counts[machine[item]] - (machine[item] == own)) / others)
        human_agrees.append((counts[own] - 1) / others)
    machine_agrees, human_agrees = np.array(machine_agrees, dtype=float), np.array(human_agrees, dtype=float)
    return machine_agrees >= human_agrees, machine_agrees, human_agrees


def _items(machine, humans, min_humans: int):
    """Who labeled each item, the items kept (the machine's, with `min_humans` human labels or more), and each
    kept item's labels counted."""
    raters: dict[Hashable, list] = {}
    for annotator, labels in humans.items():
        for item in labels:
            raters.setdefault(item, []).append(annotator)
    kept = {item for item, who in raters.items() if len(who) >= min_humans and item in machine}
    # Each item's labels counted once: "agrees with the others" is then a count less one's own label, so the
    # test costs annotators × items, not annotators² × items (207 annotators over 2,000 items took minutes).
    tally = {item: Counter(humans[who][item] for who in raters[item]) for item in kept}
    return raters, kept, tally


def alt_test(machine: Mapping[Hashable, object], humans: Mapping[Hashable, Mapping[Hashable, object]],
             epsilon: float, *, q: float = Q_FDR, min_humans: int = MIN_HUMANS_PER_ITEM,
             min_items: int = MIN_ITEMS_PER_HUMAN) -> AltTestResult:
    """`machine`: item → label; `humans`: annotator → (item → label). Items the machine did not label, or with
    fewer than `min_humans` human labels, are left out; humans with fewer than `min_items` items are not
    tested (listed in `skipped`)."""
    raters, kept, tally = _items(machine, humans, min_humans)
    tested, skipped, p_values = [], [], []
    for annotator, labels in humans.items():
        items = [item for item in labels if item in kept]
        if len(items) < min_items:
            skipped.append(annotator)
            continue
        machine_ok, machine_agrees, human_agrees = _against_the_others(machine, labels, items, tally, raters)
        human_ok = human_agrees >= machine_agrees
        differences = human_ok.astype(float) - machine_ok.astype(float)
        p_values.append(_p_value(differences, epsilon))
        tested.append((annotator, len(items), float(np.mean(machine_ok)), float(np.mean(human_agrees)),
                       float(np.mean(machine_agrees))))
    wins = benjamini_yekutieli(p_values, q)
    comparisons = [HumanComparison(annotator, n, advantage, p, i in wins, human, mine)
                   for i, ((annotator, n, advantage, human, mine), p)
                   in enumerate(zip(tested, p_values, strict=True))]
    return AltTestResult(
        epsilon=epsilon, q=q, comparisons=comparisons, skipped=skipped,
        winning_rate=len(wins) / len(comparisons) if comparisons else None,
        advantage_probability=float(np.mean([c.advantage for c in comparisons])) if comparisons else None)
