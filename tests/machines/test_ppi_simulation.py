"""The prediction-powered shares on the study's own release, in a seeded simulation with known truth (a small
version of `make bench-machine`'s): the final labels are the truth, a machine labels every report, people a
tenth of them. The intervals must cover the share of all final labels as often as they say, never be wider
than people's labels alone on the same reports, and be much narrower where the machine is good."""
from __future__ import annotations

from pathlib import Path

import pytest

from machines import simulation

DATA = Path(__file__).resolve().parent.parent
RELEASE = DATA / "stats" / "data" / "paper_release_labels.csv.gz"
VLLM = DATA / "machines" / "data"


@pytest.fixture(scope="module")
def rows():
    return simulation.release_rows(RELEASE)


def _check_valid(figures: dict) -> None:
    for level in simulation.LEVELS:
        at = figures[(level, 0.1)]
        for design in ("people", "ppi", "ppi_confidence"):
            assert at[design]["coverage"] >= 0.93, (level, design, at[design])
        assert at["ppi"]["wider"] == 0
        assert at["ppi"]["width_ratio"] <= 1.0


# 19 s of simulation: CI's (`make test FULL=1`), so that the quick suite stays within its five minutes.
@pytest.mark.slow
def test_a_good_machine_narrows_the_intervals_and_they_still_cover(rows):
    arm = simulation.jury_arm(rows)
    assert arm.reports == 38742
    figures = simulation.simulate(arm, replications=60, budgets=(0.1,), seed=1)
    _check_valid(figures)
    assert figures[("type", 0.1)]["ppi"]["width_ratio"] < 0.6
    assert figures[("theme", 0.1)]["ppi"]["width_ratio"] < 0.6
    need = simulation.labels_for_width(arm, "theme", 0.1, replications=10, seed=1)
    assert need["ppi"]["labels"] < 0.5 * need["people"]["labels"]
    assert need["ppi"]["width"] <= need["people"]["width"] * 1.1


def test_a_weak_machine_costs_nothing(rows):
    """The built-in model on the release, which holds no text: little better than each repository's mix."""
    arm = simulation.release_builtin_arm(rows)
    figures = simulation.simulate(arm, replications=60, budgets=(0.1,), seed=2)
    _check_valid(figures)


def test_the_builtin_model_on_real_text():
    arm = simulation.text_arm(VLLM / "vllm-labeled-974.jsonl.gz", VLLM / "vllm-paper-labels-974.csv")
    assert arm.reports == 974
    figures = simulation.simulate(arm, replications=200, budgets=(0.1,), seed=3)
    _check_valid(figures)
