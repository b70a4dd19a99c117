"""The sentences the statistics write about themselves (a method's name, why a figure is undefined, where two
coefficients part, what was left out), and the few other fixed notes kept with data (what closed a proposal, the
columns of a table for reports without a type), in the reader's language.

The statistics modules know nothing of Django, and their sentences are stored with the figures they describe, so
they are translated where they are shown: each known sentence is matched whole, its figures carried over into the
translation (and a figure that is itself a known phrase translated too). A sentence no pattern knows is shown as
it was written, so a new one reads in English until it is added here, never as nothing. Each pattern is written
exactly as the statistics write it, `%(name)s` where a figure stands and `%%` for a per cent sign;
tests/test_stats_words.py holds every one against the sentence its module writes today.
"""
from __future__ import annotations

import re
from functools import cache

from django.utils.translation import get_language, gettext_noop
from django.utils.translation import gettext as _

SENTENCES = (
    # Methods.
    gettext_noop("Fleiss' kappa (1971); 95 %% bootstrap interval over reports"),
    gettext_noop("Krippendorff's alpha, nominal (missing ratings allowed)"),
    gettext_noop("Fleiss' kappa (chance from the categories' shares; Gwet's form for missing ratings)"),
    gettext_noop("Gwet's AC1 (chance from the spread over the categories)"),
    gettext_noop("Brennan–Prediger (chance 1/q, q the categories used)"),
    gettext_noop("Brennan–Prediger (chance 1/q, q the categories the codebook offers)"),
    gettext_noop("Krippendorff's alpha on this code or not (alpha-binary), reports with two or more ratings"),
    gettext_noop("Fleiss' per-category kappa (1971), reports rated by every rater"),
    gettext_noop("Cohen's kappa; 95 %% bootstrap interval over reports"),
    gettext_noop("reports by the panel's plurality (rows) and the machine's label (columns); ties left out"),
    gettext_noop("Fleiss' kappa of the model's %(runs)s runs per report with each other"),
    gettext_noop("alternative annotator test (Calderon, Reichart and Dror 2025): leave one human out, one-sided t-test"
                 " against epsilon, Benjamini-Yekutieli at q = 0.05; passes when the machine wins against at least "
                 "half of the humans; every report with a machine label and %(humans)s or more human "
                 "labels%(left_list)s"),
    gettext_noop("simulation from the observed reports: %(sims)s simulated studies per size, the 2.5th to 97.5th "
                 "percentile of their Fleiss' kappa; with more raters, each simulated study draws its reports anew and "
                 "their ratings from what each report's counts imply under two models, its own Dirichlet share of the "
                 "categories or one right answer with the raters' accuracy (Dawid and Skene), each used as far as "
                 "Akaike's criterion supports it, the widths fitted to a + b/r + c/r²"),
    gettext_noop("each report counted once every rater of the round has labeled it, in the order reports became "
                 "complete; 95 %% betting confidence sequences (Waudby-Smith & Ramdas), without replacement from the "
                 "round's reports for the whole round, with replacement per type"),
    gettext_noop("Guest, Namey and Chen (2020): base size %(base)s reports, run length %(run)s reports, new "
                 "information threshold %(threshold)s of the categories known at the end of the base"),
    gettext_noop("prediction-powered inference (PPI++: Angelopoulos, Duchi and Zrnic 2023), power-tuned and never "
                 "wider than people's labels alone; normal 95 %% intervals; a share of a type or theme linearised as a"
                 " ratio"),
    gettext_noop("types (not relevant a category of its own) per arm; chi-square test of independence, Cramér's V, "
                 "shares with 95 %% bootstrap intervals"),
    gettext_noop("share agreeing (summary shown − hidden); 95 %% bootstrap interval over reports (%(resamples)s "
                 "resamples, seed %(seed)s); score test of two proportions (labels as independent)"),
    gettext_noop("Fisher's exact test"),
    gettext_noop("Monte Carlo permutation test (%(tables)s tables with the same margins)"),
    # Why a figure is undefined.
    gettext_noop("no report has two or more ratings"),
    gettext_noop("every rating is the same single category, so there is no disagreement to expect"),
    gettext_noop("expected disagreement is zero"),
    gettext_noop("one category only: there is nothing to disagree on"),
    gettext_noop("chance agreement is total: every rating is the same category"),
    gettext_noop("needs two or more non-empty subsets and two or more labels"),
    gettext_noop("no report has a complete set of ratings"),
    gettext_noop("fewer than two raters"),
    gettext_noop("every rater gave the same single category, so chance agreement is 1"),
    gettext_noop("every rating is this code, or none is"),
    gettext_noop("no report was rated by every rater"),
    gettext_noop("needs two or more reports, raters and categories"),
    gettext_noop("needs two raters and two items"),
    gettext_noop("every rater tied every item"),
    gettext_noop("fewer than two reports rated by both"),
    gettext_noop("both gave a single category throughout, so chance agreement is total"),
    gettext_noop("%(labeled)s reports are labeled; the rule needs a base of %(base)s and a run of %(run)s"),
    gettext_noop("no label of the agreement round was made under the experiment (turn it on in the set-up before the "
                 "independent round)"),
    # Where kappa and AC1 part.
    gettext_noop("Fleiss' kappa (%(kappa)s) is well below AC1 (%(ac1)s) although the raters agree on %(observed)s %% "
                 "of pairs: one category dominates, so kappa's chance agreement (%(chance)s) is high (the prevalence "
                 "paradox). AC1 and Brennan–Prediger take chance from the number of categories and are not moved by "
                 "it."),
    gettext_noop("Fleiss' kappa (%(kappa)s) is above AC1 (%(ac1)s): the categories are used evenly, so AC1's chance "
                 "agreement is the higher one."),
    # What was left out, and with whom a figure was taken.
    gettext_noop("no machine label"),
    gettext_noop("fewer than %(n)s human labels"),
    gettext_noop("reports whose type the annotators tie on (no type places them)"),
    gettext_noop("%(n)s report left out: %(why)s"),
    gettext_noop("%(n)s reports left out: %(why)s"),
    gettext_noop("rated by %(given)s of %(raters)s raters"),
    gettext_noop("fewer than two ratings"),
    gettext_noop("plurality of the panel on the sentinels"),
    gettext_noop("summary shown"),
    gettext_noop("summary hidden"),
    # What the figures rest on, and how each rater's labels count in them.
    gettext_noop("final labels"),
    gettext_noop("plurality of the labels (no final labels yet)"),
    gettext_noop("final labels where decided, else the plurality of the labels"),
    gettext_noop("blind"),
    gettext_noop("stopped labeling on %(date)s to see everyone's labels: set aside"),
    gettext_noop("the lead, not blind (the study let the lead see every label while labeling)"),
    gettext_noop("%(method)s: %(full)s of %(units)s reports, %(left)s with a rating missing left out"),
    # The planner: its stop rule, and the kappas it plans for.
    gettext_noop("keep labeling until the 95 %% interval of the kappa you will report is narrower than %(width)s, "
                 "looking after every %(every)s reports every rater has labeled, then close the round; the "
                 "interval's width decides, never the kappa's value"),
    gettext_noop("Type"),
    gettext_noop("%(name)s (%(code)s), at %(level)s level"),
    gettext_noop("theme"),
    gettext_noop("sub-theme"),
    # What closed a proposal, kept with it.
    gettext_noop("every member voted yes"),
    gettext_noop("%(who)s voted no"),
    gettext_noop("not every member voted yes by %(date)s"),
    # The columns of the reports' tables for what has no type (kept in English in their CSV files).
    gettext_noop("Not relevant"),
    gettext_noop("no final label"),
    gettext_noop("unlabeled"),
)

# A figure named `*_list` is a "; "-led list of phrases, each translated on its own.
LIST_SEPARATOR = "; "


@cache
def _patterns() -> tuple[tuple[re.Pattern, str], ...]:
    out = []
    for sentence in SENTENCES:
        parts = re.split(r"(%\(\w+\)s|%%)", sentence)
        regex = "".join(f"(?P<{p[2:-2]}>.*?)" if p.startswith("%(") else "%" if p == "%%" else re.escape(p)
                        for p in parts)
        out.append((re.compile(regex, re.DOTALL), sentence))
    return tuple(out)


def translate(text) -> str:
    """`text` in the active language when it is a sentence the statistics write; otherwise unchanged."""
    if not isinstance(text, str) or not text or (get_language() or "en").startswith("en"):
        return text
    for regex, sentence in _patterns():
        found = regex.fullmatch(text)
        if found:
            return _(sentence) % {name: _figure(name, value) for name, value in found.groupdict().items()}
    return text


def _figure(name: str, value: str) -> str:
    if name.endswith("_list"):
        items = value.split(LIST_SEPARATOR)
        return "".join(_("; ") + translate(item) for item in items[1:]) if items[0] == "" else translate(value)
    return translate(value)
