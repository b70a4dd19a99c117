"""The statistics' own sentences reach a Chinese reader in Chinese: each is produced here by the module that writes
it, so a sentence reworded there without its pattern here fails (and would otherwise show in English)."""
from __future__ import annotations

import datetime as dt
import re

import numpy as np
import pytest
from django.utils import translation

from codebook.saturation import saturation
from concord import stats_words
from findings import estimates, summary_experiment
from machines import measures
from stats import coefficients, contingency, planner
from stats.alpha import alpha_figure
from stats.kappa import fleiss_figure

# Names of methods and their authors stay as they are written in Chinese papers too.
KEPT = {"Fleiss", "Krippendorff", "Gwet", "AC1", "Brennan", "Prediger", "Cohen", "Calderon", "Reichart", "Dror",
        "Benjamini", "Yekutieli", "Dirichlet", "Dawid", "Skene", "Akaike", "Waudby", "Smith", "Ramdas", "Guest",
        "Namey", "Chen", "PPI",
        "Angelopoulos", "Duchi", "Zrnic", "Fisher", "Wilson", "Cram", "AC", "kappa", "alpha", "epsilon", "bootstrap",
        "score", "BY", "CI"}


def sentences() -> list[str]:
    """What the statistics write today, each from the module that writes it."""
    said = [coefficients.METHODS[name] for name in coefficients.METHODS]
    said += [measures.COHEN, planner.METHOD.format(sims=200), estimates.METHOD, *summary_experiment.ARMS]
    complete = fleiss_figure({1: ["A", "A"], 2: ["A", "B"], 3: ["B"]}, level="type", resamples=10)
    said += [complete.method, *complete.left_out_reasons()]
    said += [fleiss_figure({}, level="type").undefined_because,
             fleiss_figure({1: ["A", "A"], 2: ["A", "A"]}, level="type", resamples=10).undefined_because]
    lonely = alpha_figure({1: ["A", None]}, level="type")
    said += [lonely.method, lonely.undefined_because, *lonely.left_out_reasons(),
             alpha_figure({1: ["A", "A"], 2: ["A", "A"]}, level="type").undefined_because]
    said.append(planner.simulate(np.array([[2, 0]]), sims=10)["undefined_because"])
    said.append(contingency.compare(np.array([[1, 2]]), ["x"], ["A", "B"]).undefined_because)
    said.append(contingency.compare(np.array([[1, 2], [3, 1]]), ["x", "y"], ["A", "B"]).exact_method)
    said.append(contingency.compare(np.array([[1, 2, 0], [3, 1, 1]]), ["x", "y"], ["A", "B", "C"],
                                    monte_carlo=100).exact_method)
    early = saturation([dt.datetime(2025, 1, 1, tzinfo=dt.UTC)], [], 5)
    said += [early.method, early.undefined_because]
    k = coefficients.Coefficient("fleiss", 0.2, 0.9, 0.875)
    said.append(coefficients.diverge({"fleiss": k, "ac1": coefficients.Coefficient("ac1", 0.85, 0.9, 0.3)}))
    said.append(coefficients.diverge({"fleiss": coefficients.Coefficient("fleiss", 0.6, 0.7, 0.25),
                                      "ac1": coefficients.Coefficient("ac1", 0.4, 0.7, 0.5)}))
    machine = {r: "A" for r in range(40)} | {40: None}
    # Reports 30 to 39 have one person's label, 40 no machine label: both reasons for leaving one out.
    people = {name: {r: "A" if r % 3 else "B" for r in range(size)} for name, size in (("a", 41), ("b", 30), ("c", 20))}
    alt = measures._alt_test(machine, people, 0.15)
    said += [alt["method"], *alt["left_out"]]
    said.append(measures.cohen({1: "A"}, {1: "A"}, other="x")["undefined_because"])
    return [s for s in said if s]


def _english_left(text: str) -> list[str]:
    return [w for w in re.findall(r"[A-Za-z]{2,}", text) if w not in KEPT]


@pytest.mark.parametrize("sentence", sentences())
def test_each_sentence_the_statistics_write_is_read_in_chinese(sentence):
    with translation.override("zh-hans"):
        said = stats_words.translate(sentence)
    assert said != sentence and not _english_left(said), (sentence, said)
    # Every figure in the sentence is carried over.
    assert set(re.findall(r"\d+(?:\.\d+)?", sentence)) <= set(re.findall(r"\d+(?:\.\d+)?", said))


def test_english_readers_and_unknown_sentences_get_the_words_as_written():
    known = coefficients.METHODS["ac1"]
    with translation.override("en"):
        assert stats_words.translate(known) == known
    with translation.override("zh-hans"):
        unknown = "a sentence nobody wrote a pattern for"
        assert stats_words.translate(unknown) == unknown
        assert stats_words.translate("") == "" and stats_words.translate(None) is None


def test_a_page_shows_a_stored_method_in_the_readers_language():
    from django.template import Context, Template

    page = Template("{% load concord_text %}{{ m|stats_words }}")
    with translation.override("zh-hans"):
        shown = page.render(Context({"m": measures.COHEN}))
    assert "Cohen" in shown and "区间" in shown and "interval" not in shown
