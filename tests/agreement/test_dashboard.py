"""The lead's dashboard: every figure with its provenance, charts, snapshots; the vectorised tie count
agrees with the per-report rule."""
from __future__ import annotations

import random
import re
from collections import Counter

import pytest
from django.core.management import call_command
from django.urls import reverse

from agreement.models import AgreementSnapshot
from agreement.reports import study_agreement
from annotation.models import NOT_RELEVANT, Label
from concord.numbers import interval, number
from stats.ties import controversial_levels
from tests.factories import label_with, make_issue, make_study

pytestmark = pytest.mark.django_db
CODES = ["A.1", "A.2.i", "B.1", "B.2", "C.1", "C.1.i", "C.1.ii", "C.2", "NR"]


@pytest.fixture
def random_study(lead, annotator_a, annotator_b, annotator_c):
    rng = random.Random(5)
    issues = [make_issue() for _ in range(40)]
    study = make_study(lead, [annotator_a, annotator_b, annotator_c], issues=issues)
    for issue in issues:
        for person in (lead, annotator_a, annotator_b, annotator_c):
            if rng.random() < 0.9:
                label_with(person, study, issue, rng.choice(CODES))
    return study


def test_vectorised_ties_match_the_per_report_rule(random_study):
    by_issue: dict[int, list] = {}
    for label in Label.objects.select_related("type", "theme", "sub_theme"):
        vote = ((label.type.code, label.theme and label.theme.code, label.sub_theme and label.sub_theme.code)
                if label.is_relevant else (NOT_RELEVANT, None, None))
        by_issue.setdefault(label.issue_id, []).append(vote)
    expected = Counter(level for votes in by_issue.values() for level in controversial_levels(votes))
    got = study_agreement(random_study.rounds.get(), resamples=20).controversial
    assert got == {"type": expected["type"], "theme": expected["theme"], "sub_theme": expected["sub_theme"]}


def test_dashboard_shows_every_figure_with_its_provenance_and_keeps_snapshots(client_as, random_study, lead):
    client = client_as(lead)
    url = reverse("agreement:study_agreement", args=[random_study.pk])
    page = client.get(url).content.decode()
    assert "Krippendorff" in page and "Observed / expected" in page and "<svg" in page
    assert not re.search(r"\bnan\b", re.sub(r'value="[^"]*"', "", page), re.IGNORECASE)
    assert 'data-figure="type"' in page and 'data-figure="C"' in page
    # Beside Fleiss' kappa and nominal alpha, alpha with the codebook's tree distance, as the snapshot holds it.
    figures = AgreementSnapshot.objects.get().figures
    kept, (low, high) = figures["tree_alpha"], figures["tree_alpha_ci"]
    assert low < kept < high
    assert "α, tree distance" in page and (f'<td class="num" data-testid="tree-alpha">{number(kept)} '
                                           f'<span class="muted">{interval(low, high)}</span></td>') in page
    assert AgreementSnapshot.objects.count() == 1
    client.get(url)
    assert AgreementSnapshot.objects.count() == 1  # a visit shows the latest; it does not recompute
    client.post(reverse("agreement:recompute", args=[random_study.pk]),
                {"level": "theme", "expected": AgreementSnapshot.objects.get().pk})
    assert AgreementSnapshot.objects.count() == 2
    page = client.get(url).content.decode()
    assert "<polyline" in page  # the trend line appears with the second snapshot
    sub = client.get(url, {"level": "sub_theme"}).content.decode()
    assert "at sub-theme level" in sub


def test_undefined_figures_say_why(client_as, lead, annotator_a):
    issues = [make_issue(), make_issue()]
    study = make_study(lead, [annotator_a], issues=issues)
    for issue in issues:
        label_with(lead, study, issue, "C.1")
        label_with(annotator_a, study, issue, "C.1")
    page = client_as(lead).get(reverse("agreement:study_agreement", args=[study.pk])).content.decode()
    assert "undefined: every rater gave the same single category" in page


def test_the_command_prints_the_same_figures(random_study, capsys):
    call_command("agreement", random_study.name, "--resamples", "50")
    table = capsys.readouterr().out
    figures = study_agreement(random_study.rounds.get(), resamples=50)
    assert number(figures.by_type.value) in table and "C Bug at theme" in table
    call_command("agreement", random_study.name, "--format", "json", "--level", "sub_theme", "--resamples", "50")
    import json

    data = json.loads(capsys.readouterr().out)
    assert data["level"] == "sub_theme" and data["type"]["n_reports"] == figures.by_type.n_reports
    assert data["type"]["method"].startswith("Fleiss") and "left_out_reasons" in data["type"]


def test_the_api_takes_a_level(client_as, random_study, lead):
    url = reverse("api:study_agreement", args=[random_study.pk])
    assert client_as(lead).get(url, {"level": "sub_theme"}).json()["level"] == "sub_theme"
    assert client_as(lead).get(url, {"level": "word"}).status_code == 400


def test_ac1_and_brennan_prediger_stand_beside_kappa_for_the_type_and_each_type(random_study, lead, client_as):
    from stats.coefficients import coefficients
    from stats.matrices import counts_of, rating_table

    agreement = study_agreement(random_study.rounds.get(), "theme", resamples=50)
    by_issue: dict[int, list] = {}
    for label in Label.objects.select_related("type"):
        by_issue.setdefault(label.issue_id, []).append(label.type.code if label.is_relevant else NOT_RELEVANT)
    width = max(len(v) for v in by_issue.values())
    table = rating_table({i: v + [None] * (width - len(v)) for i, v in by_issue.items()})
    again = coefficients(counts_of(table), resamples=0)
    for name in ("fleiss", "ac1", "brennan_prediger"):
        assert agreement.type_others[name].value == pytest.approx(again[name].value)
        assert agreement.type_others[name].n_units == again[name].n_units
    assert all(t.others for t in agreement.per_type)
    page = client_as(lead).get(reverse("agreement:study_agreement", args=[random_study.pk])).content.decode()
    assert 'data-testid="coefficients"' in page and "Gwet&#x27;s AC1" in page
    assert 'data-testid="per-code"' in page and "α-binary" in page
    codes = {r["category"] for r in agreement.type_per_code}
    assert codes <= {"A", "B", "C", NOT_RELEVANT} and all(r["alpha"]["n"] for r in agreement.type_per_code)


def test_theme_agreement_among_reports_whose_type_every_rater_gave(lead, annotator_a, annotator_b, client_as):
    issues = [make_issue() for _ in range(4)]
    study = make_study(lead, [annotator_a, annotator_b], issues=issues)
    # Reports 0-1: all say bug, themes agree; report 2: all say bug, themes split; report 3: types split.
    for issue, codes in zip(issues, [("C.1", "C.1", "C.1"), ("C.2", "C.2", "C.2"), ("C.1", "C.2", "C.1"),
                                     ("C.1", "B.1", "C.1")], strict=True):
        for person, code in zip((lead, annotator_a, annotator_b), codes, strict=True):
            label_with(person, study, issue, code)
    agreement = study_agreement(study.rounds.get(), "theme", resamples=20)
    bug = next(t for t in agreement.per_type if t.type.code == "C")
    assert bug.unanimous.n_reports == 3 and bug.fleiss.n_reports == 4
    # By hand over the 3 unanimous reports: P̄ = (1 + 1 + 1/3)/3 = 7/9; p = (C.1 5/9, C.2 4/9) → P̄e = 41/81.
    assert bug.unanimous.value == pytest.approx((7 / 9 - 41 / 81) / (1 - 41 / 81))
    page = client_as(lead).get(reverse("agreement:study_agreement", args=[study.pk])).content.decode()
    assert 'data-figure="C-unanimous"' in page and "reports every rater gave this type" in page


def test_a_figure_outside_its_own_interval_says_so_and_intervals_read_plainly():
    from django.template.loader import render_to_string

    figure = {"value": -0.197, "ci_low": -0.227, "ci_high": -0.198, "observed": 0.5, "expected": 0.6,
              "n_reports": 40, "n_raters": 3, "categories": ["A", "B"], "left_out": 0, "left_out_reasons": {}}
    row = render_to_string("agreement/_figure_row.html", {"f": figure, "name": "Type", "code": "type"})
    assert "[\u22120.227, \u22120.198]" in row and "\u22120.197" in row and "–" not in row
    assert 'data-testid="outside-interval"' in row
    inside = render_to_string("agreement/_figure_row.html",
                              {"f": figure | {"ci_high": -0.15}, "name": "Type", "code": "type"})
    assert 'data-testid="outside-interval"' not in inside


def test_every_figure_with_a_percentile_interval_says_when_it_lies_outside():
    from django.template.loader import render_to_string

    skewed = {"name": "ac1", "value": 0.91, "ci": [0.92, 0.99], "observed": 0.9, "n": 12, "categories": 3}
    row = render_to_string("agreement/_coefficients_row.html", {"o": {"coefficients": [skewed]}, "name": "Type"})
    assert 'data-testid="outside-interval"' in row
    cell = render_to_string("agreement/_per_code_cell.html", {"f": {"value": 0.5, "ci": [0.1, 0.4], "n": 9}})
    assert 'data-testid="outside-interval"' in cell
    inside = render_to_string("agreement/_per_code_cell.html", {"f": {"value": 0.3, "ci": [0.1, 0.4], "n": 9}})
    assert 'data-testid="outside-interval"' not in inside
