"""A jury of three built-in models that read differently, measured on the vLLM reports the study's seven annotators
labeled: what delegating to it would take from people and what it would cost."""
from __future__ import annotations

import io
import json

import pytest
from django.core.management import CommandError, call_command

from machines.jury import measure_jury
from machines.models import MachineRater
from machines.selectors import panel
from stats.ties import modal_label

JURY = [("words", "words-1-2", "0"), ("single-words", "words-1", "1"), ("opening", "opening", "2")]


def _raters(*names: str) -> list[str]:
    return [part for name in names for part in ("--rater", name)]


@pytest.fixture
def jury(vllm_study):
    for name, features, seed in JURY:
        call_command("rate", "vllm", rater=name, kind="builtin", features=features, seed=seed,
                     stdout=io.StringIO())
    return vllm_study


def test_the_members_read_differently_and_keep_what_they_read(jury):
    settings = {r.name: r.settings for r in MachineRater.objects.filter(study=jury)}
    assert settings["words"] == {"folds": 5, "seed": 0}  # the default is not written, as before the choice
    assert settings["single-words"]["features"] == "words-1" and settings["opening"]["features"] == "opening"
    with pytest.raises(CommandError, match="features: one of words-1-2, words-1, opening"):
        call_command("rate", "vllm", rater="odd", kind="builtin", features="letters", stdout=io.StringIO())


def test_the_jury_command_measures_delegation_against_the_people(jury):
    out = io.StringIO()
    call_command("jury", "vllm", *_raters(*(name for name, _, _ in JURY)), format="json", stdout=out)
    f = json.loads(out.getvalue())
    assert f["reports"] == 974 and f["kappa_all"]["raters"] == 7
    assert f["fit"] == (f["machine_alpha"] >= 0.5)
    # Checked by hand: the delegated reports are those on which the three agree, and the accuracy counts the
    # jury's type against the seven annotators' plurality there.
    raters = list(MachineRater.objects.filter(study=jury).order_by("name"))
    again = measure_jury(jury, raters, confidence_min=0.0, resamples=0)
    humans = panel(jury).humans
    plurality = {i: modal_label([labels[i][0] for labels in humans.values() if i in labels])
                 for i in again["delegated_reports"]}
    judged = [i for i, p in plurality.items() if p is not None]
    assert again["accuracy"]["n"] == len(judged) and again["delegated"] >= f["delegated"]
    assert f["delegated"] == 0 or f["kappa_people"]["reports"] == f["kappa_all"]["reports"] - f["delegated"]
    table = io.StringIO()
    call_command("jury", "vllm", *_raters(*(name for name, _, _ in JURY)), stdout=table)
    assert "machine-machine alpha" in table.getvalue() and "reports left to them" in table.getvalue()
    with pytest.raises(CommandError, match="needs 3 machine raters or more"):
        call_command("jury", "vllm", *_raters("words", "opening"), stdout=io.StringIO())
    with pytest.raises(CommandError, match="no machine rater 'nobody'"):
        call_command("jury", "vllm", *_raters("words", "opening", "nobody"), stdout=io.StringIO())
