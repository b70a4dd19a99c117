"""Prediction-powered shares against the reference implementation, and the promises the tables rest on: never
wider than people's labels alone, and intervals that cover the truth as often as they say."""
from __future__ import annotations

import numpy as np
import pytest

from stats import ppi


def _case(seed, n, big_n, share, accuracy):
    """People's labels of n reports and a machine's of n + N, right with `accuracy` and otherwise a guess."""
    rng = np.random.default_rng(seed)
    truth = (rng.random(n + big_n) < share).astype(float)
    right = rng.random(n + big_n) < accuracy
    machine = np.where(right, truth, rng.random(n + big_n) < 0.3).astype(float)
    return truth[:n], machine[:n], machine[n:]


# ppi_py 0.2.3 (aangelopoulos/ppi_py), on these cases: ppi_mean_ci(Y, Yhat, Yhat_unlabeled, alpha=0.05) with λ
# tuned, the same with lam=1, and classical_mean_ci(Y, alpha=0.05). Recorded from the package, run here.
REFERENCE = [
    ((1, 40, 400, 0.3, 0.8), (0.22877353593390273, 0.38367778497021476), (0.23453691291191833, 0.40046308708808165),
     (0.1366263344801574, 0.41337366551984267)),
    ((2, 200, 3000, 0.1, 0.9), (0.04905653567320434, 0.10661437440815852),
     (0.038503998098272624, 0.10349600190172739), (0.0666364889252522, 0.1533635110747478)),
    ((3, 15, 900, 0.05, 0.6), (0.0, 0.0), (-0.14591833056684067, 0.20147388612239625), (0.0, 0.0)),
    ((4, 500, 500, 0.5, 0.95), (0.44155104798951983, 0.5058001821949706), (0.45647513721854477, 0.5475248627814553),
     (0.40441152903525124, 0.4915884709647488)),
    ((5, 60, 5000, 0.7, 0.7), (0.6507169687656751, 0.8189734981382724), (0.6649901860627707, 0.8555431472705626),
     (0.5656296796147378, 0.8010369870519289)),
    ((6, 120, 30, 0.2, 0.5), (0.12598144792695246, 0.26715219262604295), (-0.007199257716571761, 0.30719925771657175),
     (0.12843223425131373, 0.2715677657486863)),
]


@pytest.mark.parametrize(("case", "tuned", "plain", "classical"), REFERENCE)
def test_the_reference_implementation_to_rounding(case, tuned, plain, classical):
    y, f_labeled, f_unlabeled = _case(*case)
    ours = ppi.ppi(y, f_labeled, f_unlabeled)
    alone = ppi.human_only(y)
    assert (ours.low, ours.high) == pytest.approx(tuned, abs=1e-15)
    assert (ppi.ppi(y, f_labeled, f_unlabeled, lam=1).low, ppi.ppi(y, f_labeled, f_unlabeled, lam=1).high) == \
        pytest.approx(plain, abs=1e-15)
    assert (alone.low, alone.high) == pytest.approx(classical, abs=1e-15)
    assert ours.n == case[1] and ours.unlabeled == case[2]


def test_falls_back_to_people_alone_where_the_tuned_lambda_would_widen():
    """The machine labels half the labeled reports one way and none of the others: the reference's λ, weighed on
    the variance over all reports, comes out at 1 and would widen the interval; people's labels alone are used."""
    y = np.array([1] * 6 + [0] * 4 + [1] * 4 + [0] * 6, dtype=float)  # weakly with the machine
    f_labeled = np.array([1] * 10 + [0] * 10, dtype=float)
    f_unlabeled = np.zeros(1000)
    assert ppi.tuned_lambda(y, f_labeled, f_unlabeled)[0] == 1.0
    assert ppi.ppi(y, f_labeled, f_unlabeled, lam=1).width > ppi.human_only(y).width
    ours = ppi.ppi(y, f_labeled, f_unlabeled)
    assert ours.lam == 0.0 and ours.width == ppi.human_only(y).width


def test_never_wider_than_people_alone():
    rng = np.random.default_rng(3)
    for _ in range(300):
        n, big_n = int(rng.integers(5, 300)), int(rng.integers(0, 3000))
        y, f_labeled, f_unlabeled = _case(int(rng.integers(1 << 30)), n, big_n, rng.random(), rng.random())
        tuned, alone = ppi.ppi(y, f_labeled, f_unlabeled), ppi.human_only(y)
        assert tuned.se <= alone.se + 1e-15
        assert 0.0 <= tuned.lam <= 1.0


def test_active_is_never_wider_than_its_design_alone():
    rng = np.random.default_rng(4)
    for _ in range(100):
        big_n = 2000
        truth = (rng.random(big_n) < rng.random()).astype(float)
        machine = np.where(rng.random(big_n) < rng.random(), truth, rng.random(big_n) < 0.5).astype(float)
        weights = ppi.design_weights(rng.random(big_n))
        _, labeled, chance = ppi.sequential_poisson(weights, int(rng.integers(20, 400)), rng)
        value, se, lam = ppi.active_columns(truth, machine, labeled, chance)
        weight = np.where(labeled, 1 / chance, 0.0)
        alone = (truth * weight).std() / np.sqrt(big_n)
        assert se[0] <= alone + 1e-15 and 0 <= lam[0] <= 1


def test_sequential_poisson_chances_are_the_frequencies():
    """The chance each report is said to have had of being labeled is how often it is, over many draws."""
    rng = np.random.default_rng(5)
    weights = ppi.design_weights(np.linspace(0.05, 1.0, 200))
    seen, said = np.zeros(200), np.zeros(200)
    for _ in range(4000):
        _, labeled, chance = ppi.sequential_poisson(weights, 40, rng)
        seen += labeled
        said += chance
    assert np.abs(seen / 4000 - said / 4000).max() < 0.03
    assert seen[-1] > 2 * seen[0]  # the least sure are labeled more often


def test_everything_labeled_means_certain_chances():
    order, labeled, chance = ppi.sequential_poisson(np.ones(10), 10, np.random.default_rng(0))
    assert labeled.all() and (chance == 1).all() and sorted(order) == list(range(10))


@pytest.mark.parametrize("design", ["uniform", "confidence"])
def test_intervals_cover_a_known_share(design):
    """A population with a known share and a machine that is biased (it calls a third of the category's reports
    something else, and guesses elsewhere): 95 % intervals cover the share in about 95 % of 1,000 samples."""
    rng = np.random.default_rng(6)
    big_n, budget = 5000, 250
    truth = (rng.random(big_n) < 0.25).astype(float)
    sure = rng.random(big_n)
    right = rng.random(big_n) < 0.5 + 0.45 * sure
    machine = np.where(right, truth, rng.random(big_n) < 0.4).astype(float)
    share, covered = truth.mean(), 0
    weights = ppi.design_weights(np.sqrt(1 - (0.5 + 0.45 * sure)))
    z = ppi.z_value(0.95)
    for _ in range(1000):
        if design == "uniform":
            picked = rng.permutation(big_n)
            lab, rest = picked[:budget], picked[budget:]
            value, se, _ = ppi.ppi_columns(truth[lab], machine[lab], machine[rest])
        else:
            _, labeled, chance = ppi.sequential_poisson(weights, budget, rng)
            value, se, _ = ppi.active_columns(truth, machine, labeled, chance)
        covered += abs(value[0] - share) <= z * se[0]
    assert 0.93 <= covered / 1000 <= 0.97
    assert abs(machine.mean() - share) > 0.03  # the machine alone is biased


def test_machine_only_is_its_own_share():
    estimate = ppi.machine_only([1, 0, 0, 1])
    assert estimate.value == 0.5 and estimate.n == 0 and estimate.unlabeled == 4


def test_refuses_mismatched_inputs():
    with pytest.raises(ValueError, match="people's labels"):
        ppi.ppi([1, 0, 1], [1, 0], [0, 0])
    with pytest.raises(ValueError, match="no chance"):
        ppi.active([1, 0], [1, 0], [True, True], [0.5, 0.0])
    assert ppi.ppi([1], [1], [0, 0]) is None and ppi.human_only([1]) is None


def test_a_share_of_all_reports_three_ways_is_the_plain_estimate():
    y, f_labeled, f_unlabeled = _case(1, 40, 400, 0.3, 0.8)
    ones = np.ones(440)
    three = ppi.three_ways(np.concatenate([y, np.zeros(400)]), ones, np.concatenate([f_labeled, f_unlabeled]), ones,
                           np.arange(440) < 40)
    plain = ppi.ppi(y, f_labeled, f_unlabeled)
    assert (three.powered.low, three.powered.high) == pytest.approx(REFERENCE[0][1], abs=1e-15)
    assert three.powered.lam == pytest.approx(plain.lam, abs=1e-15)
    assert (three.people.low, three.people.high) == pytest.approx(REFERENCE[0][3], abs=1e-15)
    assert three.machine.value == pytest.approx(np.concatenate([f_labeled, f_unlabeled]).mean())
    assert (three.inside, three.of) == (int(y.sum()), 40)


def test_a_share_of_a_type_covers_its_truth():
    """A theme's share of its type, where both the theme and the type are labeled (by people on a random tenth,
    by a machine that confuses types and themes on the rest): the intervals cover the share of all reports'
    true labels about 95 % of the time, the powered ones are never wider than people's alone, and the machine's
    own share is off."""
    rng = np.random.default_rng(8)
    big_n = 4000
    kind = rng.choice(3, size=big_n, p=[0.5, 0.3, 0.2])  # the report's true type
    theme = rng.random(big_n) < np.where(kind == 0, 0.4, 0.1)  # the true theme, within type 0
    right = rng.random(big_n) < 0.8
    m_kind = np.where(right, kind, rng.choice(3, size=big_n))
    m_theme = np.where(rng.random(big_n) < 0.75, theme, rng.random(big_n) < 0.6)
    y_den, y_num = (kind == 0).astype(float), ((kind == 0) & theme).astype(float)
    f_den, f_num = (m_kind == 0).astype(float), ((m_kind == 0) & m_theme).astype(float)
    truth = y_num.sum() / y_den.sum()
    covered = covered_alone = 0
    for _ in range(800):
        labeled = np.zeros(big_n, dtype=bool)
        labeled[rng.permutation(big_n)[:400]] = True
        three = ppi.three_ways(y_num, y_den, f_num, f_den, labeled)
        assert three.powered.se <= three.people.se + 1e-15 and three.enough
        covered += three.powered.covers(truth)
        covered_alone += three.people.covers(truth)
    assert 0.93 <= covered / 800 <= 0.97 and 0.93 <= covered_alone / 800 <= 0.97
    assert not three.machine.covers(truth)  # its interval is of its own share


def test_a_share_of_a_type_under_the_confidence_driven_design_covers_its_truth():
    """As above, with people labeling by the confidence-driven design (sequential Poisson on the machine's
    doubt): people's share weighed by 1/chance and the powered one both cover about 95 % of the time, the
    powered never wider, and the plain share of what people labeled, which the design tilts, does not."""
    rng = np.random.default_rng(9)
    big_n = 4000
    kind = rng.choice(3, size=big_n, p=[0.5, 0.3, 0.2])
    theme = rng.random(big_n) < np.where(kind == 0, 0.4, 0.1)
    sure = rng.random(big_n) * np.where(theme, 0.2, 1.0)  # the machine doubts the theme's reports most
    right = rng.random(big_n) < 0.5 + 0.45 * sure
    m_kind = np.where(right, kind, rng.choice(3, size=big_n))
    m_theme = np.where(right, theme, rng.random(big_n) < 0.6)
    y_den, y_num = (kind == 0).astype(float), ((kind == 0) & theme).astype(float)
    f_den, f_num = (m_kind == 0).astype(float), ((m_kind == 0) & m_theme).astype(float)
    truth = y_num.sum() / y_den.sum()
    weights = ppi.design_weights(np.sqrt(1 - (0.5 + 0.45 * sure)))
    covered = covered_alone = plain = 0
    for _ in range(800):
        _, labeled, chance = ppi.sequential_poisson(weights, 400, rng)
        three = ppi.three_ways_by_design(y_num, y_den, f_num, f_den, labeled, chance)
        assert three.powered.se <= three.people.se + 1e-15
        covered += three.powered.covers(truth)
        covered_alone += three.people.covers(truth)
        plain += ppi.three_ways(y_num, y_den, f_num, f_den, labeled).people.covers(truth)
    assert plain / 800 < 0.85
    # The powered interval counts the machine's part as sampled though every report has it: a little wide.
    assert 0.93 <= covered / 800 <= 0.98 and 0.93 <= covered_alone / 800 <= 0.97, (covered, covered_alone)
