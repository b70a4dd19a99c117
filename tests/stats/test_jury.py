"""Delegating to a jury: the two-step rule, and what its figures conclude, against a seeded simulation with known
truth."""
from __future__ import annotations

import random

import numpy as np
import pytest

from stats.jury import cost, delegate, machine_alpha

TYPES = "ABC"


def test_the_gate_and_the_per_report_rule():
    agreeing = [list("AABBC"), list("AABBC"), list("AABBA")]
    assert machine_alpha([list("ABC"), list("ABC")]) == pytest.approx(1.0)
    sure = [[0.9, 0.5, 0.9, 0.9, 0.9]] * 3
    made = delegate(agreeing, sure)
    assert made.fit and made.delegated == [True, False, True, True, False]  # unsure; not unanimous
    assert made.labels == ["A", "A", "B", "B", None]
    # Machines that do not agree with each other make the level unfit: nothing is delegated.
    noise = delegate([list("ABCAB"), list("BCABC"), list("CABCA")], sure)
    assert not noise.fit and not any(noise.delegated)
    assert delegate(agreeing, sure, alpha_min=1.0).delegated == [False] * 5
    with pytest.raises(ValueError, match="3 machines or more"):
        delegate(agreeing[:2], sure[:2])


def _study(rng: random.Random, n: int, humans: int = 3):
    """Reports with a true type and a difficulty, shared by people and machines: people are right with a chance
    that falls with it; three machines are each sure of their label with a confidence that falls with it too, and
    right with exactly that chance (calibrated), independently of each other."""
    truth = [rng.choice(TYPES) for _ in range(n)]
    hard = [rng.random() for _ in range(n)]

    def noisy(right: bool, t: str) -> str:
        return t if right else rng.choice([x for x in TYPES if x != t])

    people = [[noisy(rng.random() < 0.95 - 0.4 * d, t) for _ in range(humans)] for t, d in zip(truth, hard,
                                                                                               strict=True)]
    votes, sure = [], []
    for _ in range(3):
        confidence = [min(1.0, max(0.34, 1.02 - 0.3 * d + rng.gauss(0, 0.05))) for d in hard]
        votes.append([noisy(rng.random() < c, t) for c, t in zip(confidence, truth, strict=True)])
        sure.append(confidence)
    return truth, people, votes, sure


def test_the_accuracy_interval_covers_the_jurys_accuracy_and_delegated_reports_are_the_easy_ones():
    # The population value: the delegated reports' agreement with people's plurality, on a very large study.
    _, people, votes, sure = _study(random.Random(1), 60_000)
    big = cost(people, delegate(votes, sure), resamples=0)
    population = big.accuracy.value
    assert 0.1 < big.share < 0.5 and 0.8 < population < 0.97
    covered, widths, kappas = 0, [], []
    for seed in range(200):
        _, people, votes, sure = _study(random.Random(100 + seed), 400)
        found = cost(people, delegate(votes, sure), resamples=0)
        covered += found.accuracy.low <= population <= found.accuracy.high
        widths.append(found.accuracy.high - found.accuracy.low)
        kappas.append((found.kappa_all.value, found.kappa_people.value))
    assert covered >= 0.93 * 200, covered
    # People agree less on what is left to them: the cost in agreement the study would report.
    assert np.mean([left < everyone for everyone, left in kappas]) > 0.9


def test_a_jury_that_is_always_unsure_delegates_nothing_and_costs_nothing():
    _, people, votes, _ = _study(random.Random(3), 300)
    made = delegate(votes, [[0.5] * 300] * 3)
    found = cost(people, made, resamples=0)
    assert found.delegated == 0 and found.accuracy.n == 0 and found.kappa_all.value == found.kappa_people.value


def _members(rng: random.Random, n: int, right: float) -> list[list[str]]:
    """Three machines, each right with chance `right` and otherwise guessing among the types, independently."""
    truth = [rng.choice(TYPES) for _ in range(n)]
    return [[t if rng.random() < right else rng.choice(TYPES) for t in truth] for _ in range(3)]


@pytest.mark.parametrize(("right", "population", "fit_rate"), [
    (0.65, 0.42, (0.0, 0.05)),   # clearly unfit: the gate lets it through at most once in twenty
    (0.70, 0.49, (0.2, 0.6)),    # on the line: the gate's verdict is about a coin flip
    (0.75, 0.56, (0.9, 1.0)),    # clearly fit: the gate passes it nearly always
])
def test_the_gates_verdict_against_machines_of_known_agreement(right, population, fit_rate):
    """On 200 reports (a small hidden study), 300 seeded studies per setting: the machines' population alpha
    (from 60,000 reports) is known, and the gate, which reads the point estimate, errs only near its line."""
    rng = random.Random(int(right * 100))
    assert machine_alpha(_members(rng, 60_000, right)) == pytest.approx(population, abs=0.01)
    fits = sum(delegate(_members(rng, 200, right), [[1.0] * 200] * 3).fit for _ in range(300)) / 300
    assert fit_rate[0] <= fits <= fit_rate[1], fits


def _shared_minds(rng: random.Random, n: int, labeled: int, overconfident: float):
    """A study of `n` reports, the first `labeled` of them labeled by three people (each right 90 % of the time),
    and three machines that err together, as models trained alike do: on each report they either see it (each
    then right 97 % of the time) or are misled alike (each then giving the report's one misleading type 90 % of
    the time). They see it with chance c - `overconfident`, where c, the confidence each states (c plus a little
    noise of its own), falls with the report's difficulty. With `overconfident` 0 they are calibrated."""
    people, votes, sure, truth = [], [[], [], []], [[], [], []], []
    for report in range(n):
        t = rng.choice(TYPES)
        misleading = rng.choice([x for x in TYPES if x != t])
        c = 1.0 - 0.45 * rng.random()
        sees = rng.random() < c - overconfident
        truth.append(t)
        for member in range(3):
            if sees:
                vote = t if rng.random() < 0.97 else misleading
            else:
                vote = misleading if rng.random() < 0.9 else rng.choice(TYPES)
            votes[member].append(vote)
            sure[member].append(min(1.0, c + rng.gauss(0, 0.02)))
        people.append([(t if rng.random() < 0.9 else rng.choice([x for x in TYPES if x != t]))
                       if report < labeled else None for _ in range(3)])
    return truth, people, votes, sure


def _error(truth, made) -> float:
    taken = [(label, t) for label, t, sent in zip(made.labels, truth, made.delegated, strict=True) if sent]
    return sum(label != t for label, t in taken) / len(taken)


@pytest.mark.parametrize(("overconfident", "kept_at_least", "kept_at_most"), [
    (0.0, 0.7, 1.0),    # calibrated: shown kept in about four studies of five (on 300 labeled reports)
    (0.2, 0.0, 0.02),   # sure of more than they know: refused nearly always
])
def test_the_promise_of_a_confidence_is_checked_against_people_before_anything_is_delegated(
        overconfident, kept_at_least, kept_at_most):
    """200 seeded studies of 1,000 reports, 300 of them labeled by people, per jury; the error of what the jury
    takes is counted against the truth, which the check never sees. A threshold of 0.8 promises at most 20 %
    wrong. Without the check an overconfident jury takes a third of the reports and breaks the promise in most
    studies; with it, a study that delegates keeps it in 95 % or more, whichever jury it had."""
    from stats.jury import checked, promise_kept

    kept, broken_unchecked, broken_kept, errors = 0, 0, 0, []
    for seed in range(200):
        truth, people, votes, sure = _shared_minds(random.Random(seed), 1000, 300, overconfident)
        made = delegate(votes, sure)
        error = _error(truth, made)
        errors.append(error)
        broken_unchecked += error > 0.2
        if promise_kept(checked(people, made)):
            kept += 1
            broken_kept += error > 0.2
    assert kept_at_least * 200 <= kept <= kept_at_most * 200, kept
    assert broken_kept <= 0.05 * max(kept, 1), (broken_kept, kept)
    if overconfident:
        assert broken_unchecked >= 0.9 * 200 and np.mean(errors) > 0.2, (broken_unchecked, np.mean(errors))
    else:
        assert np.mean(errors) < 0.12


def test_too_few_labeled_reports_show_no_promise_kept():
    from stats.jury import promise_kept
    from stats.proportions import rate

    assert not promise_kept(rate(15, 15)) and promise_kept(rate(16, 16)) and not promise_kept(rate(0, 0))
