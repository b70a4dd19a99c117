"""The sentinel watch against simulated studies with known truth: with nothing changed it flags at most 5 % of
decisions, and it finds a machine that got worse. Comparing the sentinels now with the interval of all reports
at decision time, as it did, flagged a fifth or more of unchanged decisions."""
from __future__ import annotations

import random

from machines.measures import below_decision, cohen, plurality, sentinel_baseline, sentinels

TYPES = ["A", "B", "C", "NR"]


def _study(seed: int, n: int, humans: int = 5, noise: float = 0.2):
    pick = random.Random(seed)
    truth = {r: pick.choice(TYPES) for r in range(n)}
    people = {f"h{h}": {r: ((t if pick.random() > noise else pick.choice(TYPES)), None, None)
                        for r, t in truth.items()} for h in range(humans)}
    return pick, truth, people


def _machine(pick, truth, accuracy: float):
    return {r: ((t if pick.random() < accuracy else pick.choice([x for x in TYPES if x != t])), None, None)
            for r, t in truth.items()}


def _alarms(studies: int, drop: float, n: int, share: float = 0.1, accuracy: float = 0.85) -> tuple[float, float]:
    """Share of decisions flagged by the watch's rule, and by the old rule, when the machine's next run is as
    accurate as at decision time less `drop` (a fresh run: its errors fall on other reports)."""
    flagged = old = 0
    for seed in range(studies):
        pick, truth, people = _study(seed, n)
        reports = sorted(truth)
        first = _machine(pick, truth, accuracy)
        panel = plurality({h: {r: v[r][0] for r in reports} for h, v in people.items()}, reports)
        on_all = cohen({r: first[r][0] for r in reports}, panel, other="plurality", resamples=200)
        chosen = sorted(sentinels(reports, share, seed))
        decided = {"cohen_plurality": on_all,
                   "sentinels_at_decision": sentinel_baseline(people, first, chosen, level="type", resamples=200)}
        now = {"cohen_plurality": sentinel_baseline(people, _machine(pick, truth, accuracy - drop), chosen,
                                                    level="type", resamples=200)}
        flagged += below_decision(decided, now)
        old += below_decision({"cohen_plurality": on_all}, now)
    return flagged / studies, old / studies


def test_with_nothing_changed_at_most_five_percent_of_decisions_are_flagged():
    flagged, old = _alarms(300, 0.0, n=2000)
    assert flagged <= 0.05, flagged
    assert old > 0.15, old  # the rule it replaces


def test_a_machine_that_got_worse_is_found():
    flagged, _ = _alarms(100, 0.2, n=2000)
    assert flagged >= 0.9, flagged
