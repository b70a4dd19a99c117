"""How many reports are enough: the simulated interval narrows as 1/√N, and the planner
names the first size that reaches the chosen width."""
from __future__ import annotations

import numpy as np
import pytest

from stats.kappa import bootstrap_kappa
from stats.planner import plan


def _study(n: int = 300, raters: int = 5, seed: int = 3) -> np.ndarray:
    rng = np.random.default_rng(seed)
    truth = rng.integers(0, 4, size=n)
    counts = np.zeros((n, 4), dtype=np.int64)
    for i, t in enumerate(truth):
        for _ in range(raters):
            counts[i, t if rng.random() < 0.7 else rng.integers(0, 4)] += 1
    return counts


def test_the_interval_narrows_as_one_over_root_n_and_the_first_size_that_reaches_the_width_is_named():
    counts = _study()
    result = plan(counts, target_width=0.05, sims=300)
    now = result["now"]
    low, high = bootstrap_kappa(counts, 1000, seed=1)
    assert now == pytest.approx(high - low, rel=0.2)  # today's width is the bootstrap interval's
    by_size = {row["reports"]: row["width"] for row in result["sizes"]}
    assert by_size[1200] == pytest.approx(now / 2, rel=0.2)
    assert by_size[4800] == pytest.approx(now / 4, rel=0.25)
    enough = result["enough_reports"]
    assert by_size[enough] <= 0.05 and all(w > 0.05 for size, w in by_size.items() if size < enough)


def test_more_raters_narrow_it_too_and_a_met_target_needs_no_more_reports():
    counts = _study()
    result = plan(counts, target_width=1.0, sims=200)
    assert result["enough_reports"] == 300
    widths = [row["width"] for row in result["raters"]]
    assert widths[-1] < result["now"] and [row["raters"] for row in result["raters"]] == [6, 7, 8, 10]


def test_too_little_to_plan_from():
    assert plan(np.array([[2, 0]]), 0.1)["undefined_because"]


@pytest.mark.django_db
def test_the_planner_page_plans_every_figure_of_the_dashboard(study, lead, annotator_a, annotator_b, client_as):
    from django.urls import reverse

    from tests.factories import label_with

    for issue in study.issues.all():
        for person, code in ((annotator_a, "C.1"), (annotator_b, "C.1"), (lead, "B.1")):
            label_with(person, study, issue, code)
    url = reverse("agreement:planner", args=[study.pk])
    page = client_as(lead).get(url + "?width=0.05&level=sub_theme").content.decode()
    assert page.count('data-testid="plan"') == 4  # the type and each of the three types
    assert "Interval width wanted" in page
    assert client_as(lead).get(url + "?width=%00&level=x").status_code == 200


def test_a_width_of_zero_is_a_width_but_never_enough():
    # Every report unanimous, two categories: every resample's kappa is 1, so the interval has width 0 — shown as
    # a width, but twenty reports that never disagree say nothing of how far the kappa could fall.
    counts = np.array([[3, 0], [0, 3]] * 10)
    result = plan(counts, 0.1, sims=50)
    assert result["now"] == 0.0 and all(s["width"] == 0.0 for s in result["sizes"])
    assert result["enough_reports"] is None


@pytest.mark.django_db
def test_the_plans_are_kept_while_the_labels_stand_and_computed_by_a_worker(study, lead, annotator_a, annotator_b,
                                                                            client_as):
    from django.core.cache import cache
    from django.urls import reverse

    from agreement.models import Plan
    from agreement.services import _planning_key
    from tests.factories import label_with

    issues = list(study.issues.all())
    for issue in issues:
        for person, code in ((annotator_a, "C.1"), (annotator_b, "C.2"), (lead, "C.1")):
            label_with(person, study, issue, code)
    client = client_as(lead)
    url = reverse("agreement:planner", args=[study.pk])
    first = client.get(url + "?width=0.2").content.decode()
    assert Plan.objects.count() == 1 and 'data-testid="plan"' in first
    # Another width reads the same simulations; nothing is simulated again.
    assert 'data-testid="plan"' in client.get(url + "?width=0.05").content.decode() and Plan.objects.count() == 1
    # A label changes: the kept plans are stale. While a worker simulates, the page says so and polls.
    label_with(annotator_b, study, issues[0], "C.1")
    round = study.rounds.get(number=1)
    cache.set(_planning_key(round, "theme"), True, 60)
    try:
        waiting = client.get(url).content.decode()
    finally:
        cache.delete(_planning_key(round, "theme"))
    assert 'data-testid="computing"' in waiting and 'hx-trigger="every 2s"' in waiting
    assert 'data-testid="plan"' not in waiting and Plan.objects.count() == 1
    assert 'data-testid="plan"' in client.get(url).content.decode() and Plan.objects.count() == 2


def _shares_population(shares, strength: float):
    """Reports whose own shares of the categories vary as Dirichlet(strength × shares)."""
    def draw(rng, n: int, raters: int) -> np.ndarray:
        return rng.multinomial(raters, rng.dirichlet(strength * np.asarray(shares), size=n))
    return draw


def _answer_population(shares, accuracy: float):
    """Reports with one right category each, drawn from `shares`; a rater gives it with chance `accuracy` and
    otherwise guesses from `shares`."""
    def draw(rng, n: int, raters: int) -> np.ndarray:
        k = len(shares)
        truth = rng.choice(k, size=n, p=shares)
        guesses = rng.choice(k, size=(n, raters), p=shares)
        ratings = np.where(rng.random((n, raters)) < accuracy, truth[:, None], guesses)
        counts = np.zeros((n, k), dtype=np.int64)
        np.add.at(counts, (np.repeat(np.arange(n), raters), ratings.ravel()), 1)
        return counts
    return draw


@pytest.mark.parametrize(("population", "n", "raters"), [
    (_shares_population((0.5, 0.3, 0.15, 0.05), 2.0), 200, 3),  # kappa about 0.33
    (_shares_population((0.7, 0.2, 0.1), 0.5), 150, 3),  # about 0.67
    (_shares_population(tuple(np.arange(20, 0, -1) / 210), 0.2), 300, 3),  # twenty themes, about 0.83
    (_shares_population((0.8, 0.15, 0.05), 0.05), 400, 3),  # about 0.95
    (_answer_population((0.6, 0.3, 0.1), 0.7), 300, 3),  # a right answer and guesses
    (_answer_population((0.25, 0.25, 0.25, 0.25), 0.7), 300, 5),  # where a Dirichlet alone was 12 % too wide
])
def test_the_width_with_more_raters_is_the_width_studies_with_more_raters_have(population, n, raters):
    """Known truth: 400 fresh studies of n reports from the population, rated by 1 to 5 more raters each; the
    planner sees only studies with `raters` (ten of them, so that one study's luck does not decide), and must
    predict the width of each within 15 %; more raters never widen it, with no width capped by another."""
    from stats.planner import EXTRA_RATERS, _fleiss, _width

    rng = np.random.default_rng(11)
    observed = [population(np.random.default_rng(100 + i), n, raters) for i in range(10)]
    plans = [plan(study, 0.1, sims=300, seed=i) for i, study in enumerate(observed)]
    for column, extra in enumerate(EXTRA_RATERS):
        truth = _width(np.array([_fleiss(population(rng, n, raters + extra)) for _ in range(400)]))
        predicted = np.mean([p["raters"][column]["width"] for p in plans])
        assert predicted == pytest.approx(truth, rel=0.15), (raters + extra, predicted, truth)
    for p in plans:
        widths = [row["width"] for row in p["raters"]]
        assert widths == sorted(widths, reverse=True), widths
