"""Table 1 and Figure 3 from final labels: counts, shares of the type, and groups whose shares are their
parts' sum, never a typed number (the study printed 18.21 % where its count gave 24.38 %)."""
from __future__ import annotations

import csv
import datetime as dt
import io
import json

import pytest
from django.core.management import call_command
from django.urls import reverse

from annotation.models import FinalLabel
from findings.tables import figure3, parse_groups, share, table1
from tests.factories import category, label_with, make_issue, make_source, make_study

pytestmark = pytest.mark.django_db


@pytest.fixture
def finished(lead, annotator_a):
    vllm, torch = make_source("vllm-project/vllm"), make_source("pytorch/pytorch")
    plan = [(vllm, 2023, "C.1"), (vllm, 2024, "C.1"), (vllm, 2024, "C.2"), (torch, 2024, "C.2"),
            (torch, 2025, "B.1"), (torch, 2025, "NR"), (torch, 2025, None)]
    issues = [make_issue(src, created_at=dt.datetime(year, 3, 1, tzinfo=dt.UTC)) for src, year, _ in plan]
    study = make_study(lead, [annotator_a], issues=issues)
    for issue, (_, _, code) in zip(issues, plan, strict=True):
        if code == "NR":
            FinalLabel.objects.create(study=study, issue=issue, is_relevant=False, method="majority")
        elif code:
            theme = category(code)
            FinalLabel.objects.create(study=study, issue=issue, type=theme.parent, theme=theme, method="majority")
    return study


def test_table1_counts_reports_per_source_by_year_and_type(finished):
    rows, years, types = table1(finished)
    assert years == [2023, 2024, 2025]
    by = {r.source: r for r in rows}
    assert by["vllm-project/vllm"].by_year == {2023: 1, 2024: 2} and by["vllm-project/vllm"].by_type == {"Bug": 3}
    assert by["pytorch/pytorch"].by_type == {"Bug": 1, "Requirement": 1, "Not relevant": 1, "no final label": 1}
    assert types[-2:] == ["Not relevant", "no final label"]


def test_figure3_shares_come_from_counts_and_groups_add_up(finished):
    blocks = {b.code: b for b in figure3(finished, parse_groups("Both: C.1, C.2"))}
    bug = blocks["C"]
    assert bug.total == 4
    themes = {t.code: t for t in bug.themes}
    assert (themes["C.1"].count, themes["C.1"].share) == (2, 0.5)
    assert (themes["C.2"].count, themes["C.2"].share) == (2, 0.5)
    name, members, count, group_share = bug.groups[0]
    assert (name, members, count) == ("Both", ["C.1", "C.2"], 4)
    assert group_share == pytest.approx(themes["C.1"].share + themes["C.2"].share) == 1.0
    assert share(0, 0) is None


def test_the_page_and_csvs(client_as, finished, lead):
    client = client_as(lead)
    page = client.get(reverse("findings:statistics", args=[finished.pk]), {"groups": "Both: C.1, C.2"}).content
    page = page.decode()
    assert "50.00 %" in page and "100.00 %" in page and "<svg" in page
    table1_rows = list(csv.DictReader(io.StringIO(b"".join(
        client.get(reverse("findings:table1_csv", args=[finished.pk])).streaming_content).decode())))
    assert {r["source"]: r["reports"] for r in table1_rows} == {"pytorch/pytorch": "4", "vllm-project/vllm": "3"}
    figure = list(csv.DictReader(io.StringIO(b"".join(client.get(
        reverse("findings:figure3_csv", args=[finished.pk]), {"groups": "Both: C.1, C.2"}).streaming_content)
        .decode())))
    group = next(r for r in figure if r["kind"] == "group")
    assert (group["reports"], group["share_percent"]) == ("4", "100.00")


def test_the_command_prints_the_same(finished, capsys):
    call_command("stats", finished.name, "--group", "Both: C.1, C.2")
    data = json.loads(capsys.readouterr().out)
    bug = next(b for b in data["figure3"] if b["code"] == "C")
    assert bug["total"] == 4 and bug["groups"][0]["share"] == 1.0
    assert data["table1"]["years"] == [2023, 2024, 2025]


def test_statistics_are_hidden_from_annotators_while_blind(client_as, finished, annotator_a):
    assert client_as(annotator_a).get(reverse("findings:statistics", args=[finished.pk])).status_code == 403


def test_before_closing_the_figures_come_from_what_the_votes_settle_on(study, lead, annotator_a, annotator_b,
                                                                        annotator_c, client_as):
    """An open study's statistics were all zeros and "undefined"."""
    one, two, three = study.issues.order_by("created_at", "id")
    for person, codes in {annotator_a: ["C.1", "A.1", "C.2"], annotator_b: ["C.1", "A.1", "C.3"],
                          annotator_c: ["C.2", "NR", "C.4"]}.items():
        for issue, code in zip((one, two, three), codes, strict=True):
            label_with(person, study, issue, code)
    blocks = {b.code: b for b in figure3(study)}
    assert blocks["C"].total == 1 and blocks["A"].total == 1  # three is tied three ways: left out
    rows, _, _ = table1(study)
    assert rows[0].by_type == {"Bug": 1, "Question": 1, "no final label": 1}
    page = client_as(lead).get(reverse("findings:statistics", args=[study.pk])).content.decode()
    assert "Provisional." in page


def test_a_group_naming_an_unknown_code_says_so(study, lead, client_as):
    page = client_as(lead).get(reverse("findings:statistics", args=[study.pk]),
                               {"groups": "Resources: C.2, C.99\nOther: X.1"}).content.decode()
    assert "Not themes of this codebook, so left out of their group: C.99 (in Resources), X.1 (in Other)." in page
