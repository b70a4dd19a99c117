"""The machine measured like people: each figure against an independent computation or a case worked by hand."""
from __future__ import annotations

import random

import pytest
from sklearn.metrics import cohen_kappa_score

from machines.measures import below_decision, cohen, confusion, measure, plurality, sentinels, value_at

TYPES = ["A", "B", "C", "NR"]


def _panel(n: int = 120, humans: int = 5, noise: float = 0.2, seed: int = 3):
    pick = random.Random(seed)
    truth = {r: pick.choice(TYPES) for r in range(n)}
    people = {}
    for h in range(humans):
        people[f"h{h}"] = {r: ((t if pick.random() > noise else pick.choice(TYPES)), None, None) for r, t in
                           truth.items()}
        people[f"h{h}"] = {r: (c[0], f"{c[0]}.1" if c[0] != "NR" else None, None) for r, c in people[f"h{h}"].items()}
    reference = {r: t for r, t in truth.items()}
    return truth, people, reference


def test_cohen_matches_scikit_learn_and_its_interval_holds_it():
    pick = random.Random(1)
    a = {r: pick.choice("xyz") for r in range(300)}
    b = {r: (v if pick.random() < 0.6 else pick.choice("xyz")) for r, v in a.items()}
    result = cohen(a, b, other="b")
    expected = cohen_kappa_score([a[r] for r in a], [b[r] for r in a])
    assert result["value"] == pytest.approx(expected, abs=1e-12)
    assert result["ci"][0] < expected < result["ci"][1]
    assert result["n"] == 300


def test_cohen_says_why_it_is_undefined():
    assert cohen({1: "x"}, {1: "x"}, other="b")["undefined_because"]
    assert cohen({1: "x", 2: "x"}, {1: "x", 2: "x"}, other="b")["value"] is None


def test_a_machine_copying_one_human_changes_nothing_when_it_takes_that_humans_place():
    truth, people, reference = _panel()
    machine = dict(people["h0"])
    figures = measure(people, reference, machine, level="type", resamples=50)
    replacing_h0 = next(r for r in figures["replacing"] if r["human"] == "h0")
    assert replacing_h0["fleiss"]["value"] == pytest.approx(figures["humans_fleiss"]["value"])
    assert replacing_h0["alpha"]["value"] == pytest.approx(figures["humans_alpha"]["value"])
    assert next(c for c in figures["cohen_humans"] if c["with"] == "h0")["value"] == pytest.approx(1.0)


def test_a_machine_as_good_as_the_panel_passes_the_alternative_annotator_test_and_a_random_one_fails():
    truth, people, reference = _panel(n=200, noise=0.3)
    good = {r: (t, f"{t}.1" if t != "NR" else None, None) for r, t in truth.items()}
    pick = random.Random(9)
    bad = {r: (pick.choice(TYPES), None, None) for r in truth}
    passed = measure(people, reference, good, level="type", epsilon=0.1, resamples=20)["alt_test"]
    failed = measure(people, reference, bad, level="type", epsilon=0.1, resamples=20)["alt_test"]
    assert passed["passed"] and passed["winning_rate"] == 1.0
    assert not failed["passed"] and failed["winning_rate"] == 0.0
    assert len(passed["comparisons"]) == 5 and all(0 <= c["p_value"] <= 1 for c in passed["comparisons"])


def test_per_type_figures_use_only_the_reports_of_that_type():
    truth, people, reference = _panel()
    figures = measure(people, reference, {}, level="theme", type_code="B", resamples=10)
    assert figures["reports"] == sum(1 for t in truth.values() if t == "B")
    assert figures["rated"] == 0


def test_self_agreement_of_identical_runs_is_one_and_machines_are_compared_with_each_other():
    truth, people, reference = _panel()
    machine = {r: (t, None, None) for r, t in truth.items()}
    figures = measure(people, reference, machine, level="type", runs=[machine, machine, machine],
                      machines={"other": machine}, resamples=10)
    assert figures["self"]["value"] == pytest.approx(1.0)
    assert figures["self"]["raters"] == 3
    assert figures["machines"][0]["value"] == pytest.approx(1.0)


def test_confusion_matrix_counts_by_hand():
    reference = {1: "A", 2: "A", 3: "B", 4: None}
    machine = {1: "A", 2: "B", 3: "B", 4: "A"}
    result = confusion(reference, machine)
    assert result["categories"] == ["A", "B"]
    assert result["rows"] == [[1, 1], [0, 1]]
    assert result["n"] == 3


def test_plurality_leaves_ties_out_and_not_relevant_is_a_value_at_every_level():
    assert plurality({"a": {1: "A"}, "b": {1: "B"}}, [1]) == {1: None}
    assert value_at(("NR", None, None), "sub_theme") == "NR"
    assert value_at(("C", "C.2", None), "sub_theme") is None


def test_sentinels_are_seeded_and_take_their_share():
    first = sentinels(range(1000), 0.1, seed=7)
    assert first == sentinels(list(reversed(range(1000))), 0.1, seed=7)
    assert len(first) == 100 and first != sentinels(range(1000), 0.1, seed=8)
    assert len(sentinels(range(3), 0.1, seed=1)) == 1


def test_a_decision_is_flagged_only_below_the_interval_it_rested_on():
    decided = {"cohen_plurality": {"value": 0.8, "ci": [0.7, 0.9]}}
    assert not below_decision(decided, {"cohen_plurality": {"value": 0.72}})
    assert below_decision(decided, {"cohen_plurality": {"value": 0.65}})
    assert not below_decision(decided, {"cohen_plurality": {"value": None}})


def test_type_level_figures_use_the_reports_whose_type_is_tied_and_per_type_ones_say_they_left_them():
    truth, people, reference = _panel(n=120, humans=4)
    tied = list(range(29))  # as many as one hidden study had: no plurality type before adjudication
    reference = {r: ("" if r in tied else t) for r, t in reference.items()}
    machine = {r: (t, None, None) for r, t in truth.items()}
    figures = measure(people, reference, machine, level="type", epsilon=0.2, resamples=10)
    assert figures["reports"] == 120
    assert {c["items"] for c in figures["alt_test"]["comparisons"]} == {120}
    assert {c["n"] for c in figures["cohen_humans"]} == {120}
    per_type = measure(people, reference, machine, level="theme", type_code="C", resamples=10)
    assert per_type["left_out"] == {"reports whose type the annotators tie on (no type places them)": 29}
    unlabeled = measure(people, reference, {r: c for r, c in machine.items() if r >= 10}, level="type",
                        epsilon=0.2, resamples=10)
    assert unlabeled["alt_test"]["left_out"] == {"no machine label": 10}
    assert "10 reports left out: no machine label" in unlabeled["alt_test"]["method"]


@pytest.mark.django_db
def test_the_panel_keeps_a_report_whose_type_is_tied():
    from machines.selectors import panel
    from tests.factories import label_with, make_study, make_user

    alice, bob = make_user("alice"), make_user("bob")
    study = make_study(make_user("lead"), [alice, bob], n_issues=2)
    first, second = study.issues.order_by("pk")
    for person, (a, b) in ((alice, ("C.1", "A.1")), (bob, ("C.2", "B.1"))):
        label_with(person, study, first, a)
        label_with(person, study, second, b)
    assert panel(study).reference_types == {first.pk: "C", second.pk: ""}


def test_the_calibration_curve_of_known_confidences():
    from machines.measures import calibration

    pairs = [(0.15, n < 3) for n in range(20)] + [(0.95, n < 19) for n in range(20)] + [(1.0, True)]
    curve = calibration(pairs)
    low, high = curve["bins"]
    assert (low["low"], low["n"], low["right"]) == (0.1, 20, 0.15) and (high["high"], high["n"]) == (1.0, 21)
    assert high["confidence"] == pytest.approx((19 * 0.95 + 0.95 + 1.0) / 21)
    assert curve["ece"] == pytest.approx(21 / 41 * abs(high["confidence"] - 20 / 21))
    assert curve["right"] == pytest.approx(23 / 41)
    assert calibration([]) == {"bins": [], "n": 0, "ece": None, "right": None}


@pytest.mark.django_db
def test_a_language_models_confidence_is_the_share_of_its_runs_that_agree():
    from machines.models import MachineLabel, MachineRater, MachineRun
    from machines.selectors import confidences
    from tests.factories import make_study, make_user

    study = make_study(make_user("lead"), [], n_issues=4)
    first, second, third, fourth = study.issues.order_by("pk")
    rater = MachineRater.objects.create(study=study, name="llm", kind="llm", settings={"runs": 3})
    run = MachineRun.objects.create(rater=rater, status="succeeded")
    answers = {first: ["C.1", "C.1", "C.1"], second: ["C.1", "B.2", "C.1"], third: [None, "B.2", "C.3"],
               fourth: ["C.1", "C.2", "C.3"]}
    for issue, codes in answers.items():
        for attempt, code in enumerate(codes):
            if code is None:
                MachineLabel.objects.create(run=run, issue=issue, attempt=attempt, unparseable=True)
            else:
                MachineLabel.objects.create(run=run, issue=issue, attempt=attempt, type_code=code[0],
                                            theme_code=code)
    assert confidences(run) == {first.pk: 1.0, second.pk: pytest.approx(2 / 3), third.pk: pytest.approx(1 / 3),
                                fourth.pk: pytest.approx(1 / 3)}
    # Of the type alone, as a jury deciding types reads it: three runs of three themes of one type all agree.
    assert confidences(run, of_type=True) == {first.pk: 1.0, second.pk: pytest.approx(2 / 3),
                                              third.pk: pytest.approx(1 / 3), fourth.pk: 1.0}
