"""The alternative annotator test, against a worked example computed by hand and against the authors' procedure
on random data."""
from __future__ import annotations

import random

import numpy as np
import pytest
from scipy.stats import ttest_1samp

from stats.alt_test import EPSILONS, alt_test, benjamini_yekutieli

# Three humans, four items. Leaving h1 out, the item-by-item differences (human's win − machine's win) are
# [0, −1, 0, 0]: mean −0.25, sample sd 0.5, t = (−0.25 − 0.2) / (0.5 / 2) = −1.8 on 3 df, p = 0.0849.
# Leaving h3 out: [0, 0, −1, 0], the same p. Leaving h2 out: all 0, a certain outcome below ε, p = 0.
# Benjamini–Yekutieli at q = 0.05 with m = 3 (H₃ = 11/6): thresholds 0.00909, 0.01818, 0.02727 → only h2's
# p passes: the machine wins against 1 of 3 humans (fails), and did at least as well as every human on every
# item (advantage probability 1).
HUMANS = {"h1": {1: "A", 2: "A", 3: "B", 4: "A"}, "h2": {1: "A", 2: "B", 3: "B", 4: "A"},
          "h3": {1: "A", 2: "B", 3: "A", 4: "B"}}
MACHINE = {1: "A", 2: "B", 3: "B", 4: "B"}


def test_the_worked_example():
    result = alt_test(MACHINE, HUMANS, EPSILONS["expert"], min_items=4)
    p = {c.annotator: c.p_value for c in result.comparisons}
    assert p["h1"] == pytest.approx(0.0849, abs=1e-4) and p["h3"] == p["h1"] and p["h2"] == 0.0
    assert [c.annotator for c in result.comparisons if c.machine_wins] == ["h2"]
    assert result.winning_rate == pytest.approx(1 / 3) and not result.passed
    assert result.advantage_probability == 1.0


def test_too_few_items_leave_a_human_untested():
    result = alt_test(MACHINE, HUMANS, 0.2)  # 4 items, fewer than the 30 a t-test needs
    assert result.comparisons == [] and result.skipped == ["h1", "h2", "h3"] and result.winning_rate is None
    assert not result.passed


def _reference(machine, humans, epsilon, q=0.05, min_humans=2, min_items=30):
    """The procedure as its authors publish it (AltTest's notebook), written out again to compare with."""
    h_set = {}
    for h, anns in humans.items():
        for i in anns:
            h_set.setdefault(i, []).append(h)
    keep = {i for i in h_set if len(h_set[i]) >= min_humans and i in machine}
    p_values, advantages = [], []
    for h in humans:
        items = [i for i in humans[h] if i in keep]
        if len(items) < min_items:
            continue
        f_ind, h_ind = [], []
        for i in items:
            rest = [humans[k][i] for k in h_set[i] if k != h]
            s_h = float(np.mean([humans[h][i] == r for r in rest]))
            s_f = float(np.mean([machine[i] == r for r in rest]))
            f_ind.append(1 if s_f >= s_h else 0)
            h_ind.append(1 if s_h >= s_f else 0)
        p_values.append(ttest_1samp([a - b for a, b in zip(h_ind, f_ind, strict=True)], epsilon,
                                    alternative="less").pvalue)
        advantages.append(float(np.mean(f_ind)))
    m = len(p_values)
    order = np.argsort(p_values)
    thresholds = np.arange(1, m + 1) / m * q / np.sum(1.0 / np.arange(1, m + 1))
    last = max((k for k in range(m) if np.asarray(p_values)[order][k] <= thresholds[k]), default=-1)
    return (last + 1) / m, float(np.mean(advantages)), p_values


@pytest.mark.parametrize("seed", range(8))
def test_it_agrees_with_the_authors_procedure_on_random_panels(seed):
    pick = random.Random(seed)
    labels = "ABCD"
    items = range(60)
    truth = {i: pick.choice(labels) for i in items}
    noisy = lambda i, keep: truth[i] if pick.random() < keep else pick.choice(labels)  # noqa: E731
    humans = {f"h{k}": {i: noisy(i, 0.7) for i in items if pick.random() < 0.9} for k in range(4)}
    machine = {i: noisy(i, pick.choice([0.5, 0.7, 0.9])) for i in items}
    epsilon = pick.choice(list(EPSILONS.values()))
    result = alt_test(machine, humans, epsilon)
    winning_rate, advantage, p_values = _reference(machine, humans, epsilon)
    assert result.winning_rate == pytest.approx(winning_rate) and result.advantage_probability == pytest.approx(
        advantage)
    assert [c.p_value for c in result.comparisons] == pytest.approx(p_values)


def test_benjamini_yekutieli_rejects_the_step_up_prefix():
    # m = 4, H₄ = 25/12, q = 0.05: thresholds 0.006, 0.012, 0.018, 0.024.
    assert benjamini_yekutieli([0.02, 0.001, 0.5, 0.011]) == {1, 3}
    assert benjamini_yekutieli([0.2, 0.3]) == set() and benjamini_yekutieli([]) == set()


def test_each_verdict_comes_with_both_agreements_and_any_epsilon_up_to_a_half_is_taken():
    from stats.alt_test import epsilon_of

    humans = {f"h{h}": {i: (i % 3 if (i + h) % 7 else (i + 1) % 3) for i in range(60)} for h in range(4)}
    machine = {i: (i % 3 if i % 5 else (i + 2) % 3) for i in range(60)}
    result = alt_test(machine, humans, 0.2)
    for c in result.comparisons:
        others = [h for h in humans if h != c.annotator]
        by_hand = sum(sum(humans[o][i] == humans[c.annotator][i] for o in others) / len(others) for i in range(60))
        assert c.human_agreement == pytest.approx(by_hand / 60)
        assert c.machine_agreement < c.human_agreement
    assert epsilon_of("0.25") == 0.25 and epsilon_of("0.5") == 0.5
    for wrong in ("0", "0.51", "-0.1", "x"):
        with pytest.raises(ValueError, match=r"\(0, 0.5\]"):
            epsilon_of(wrong)


@pytest.mark.django_db
def test_the_raters_command_takes_any_epsilon_in_range():
    import io

    from django.core.management import CommandError, call_command

    from tests.factories import make_study, make_user

    study = make_study(make_user("lead"), [])
    call_command("raters", study.name, "--epsilon", "0.3", stdout=io.StringIO())
    with pytest.raises(CommandError, match=r"\(0, 0.5\]"):
        call_command("raters", study.name, "--epsilon", "0.7", stdout=io.StringIO())
