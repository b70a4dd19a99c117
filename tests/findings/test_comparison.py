"""Subset comparison in a study: subsets by source, keyword group or saved subset; the no-keyword baseline
drawn into the study and its queues; the page, the CSV, the command and the dataset card."""
from __future__ import annotations

import json

import pytest
from django.core.management import call_command
from django.urls import reverse

from annotation.models import Assignment, FinalLabel
from concord.form_tokens import new_token
from findings.comparison import ComparisonError, compare_study, labels_at, subsets_by
from findings.models import Subset
from findings.subsets import draw_baseline
from ingest.models import Keyword, KeywordList
from tests.factories import category, make_issue, make_source, make_study

pytestmark = pytest.mark.django_db


@pytest.fixture
def two_sources(lead, annotator_a):
    vllm, torch = make_source("vllm-project/vllm"), make_source("pytorch/pytorch")
    words = KeywordList.objects.create(name="words")
    llama = Keyword.objects.create(keyword_list=words, term="llama", origin="model_name", status="accepted")
    bf16 = Keyword.objects.create(keyword_list=words, term="bf16", origin="hardware_precision", status="accepted")
    issues = []
    for n in range(40):
        source = vllm if n < 20 else torch
        issue = make_issue(source)
        issue.matched_keywords.add(llama if n % 2 else bf16)
        issues.append(issue)
    study = make_study(lead, [annotator_a], issues=issues)
    for n, issue in enumerate(issues):
        # vLLM reports are mostly C.1, PyTorch's mostly C.2: a planted difference.
        code = ("C.1" if n % 5 else "C.2") if n < 20 else ("C.2" if n % 5 else "C.1")
        theme = category(code)
        FinalLabel.objects.create(study=study, issue=issue, type=theme.parent, theme=theme, method="majority")
    for _ in range(30):
        make_issue(torch, kept=False)  # matched no keyword: the baseline's population
    return study


def test_subsets_and_labels(two_sources):
    by_source = subsets_by(two_sources, "source")
    assert {k: len(v) for k, v in by_source.items()} == {"vllm-project/vllm": 20, "pytorch/pytorch": 20}
    groups = subsets_by(two_sources, "keyword_group")
    assert {k: len(v) for k, v in groups.items()} == {"Model or project name": 20, "Hardware or precision": 20}
    assert set(labels_at(two_sources, "theme").values()) == {"C.1", "C.2"}
    assert set(labels_at(two_sources, "type").values()) == {"C"}


def test_a_planted_difference_between_sources_is_found(two_sources):
    result = compare_study(two_sources, "source", "theme")
    assert result.p < 0.01 and result.cramers_v > 0.5 and result.df == 1
    by_keyword = compare_study(two_sources, "keyword_group", "theme")
    assert by_keyword.p > 0.5  # the keyword groups split both sources evenly


def test_the_baseline_is_drawn_into_the_study_and_its_queues(two_sources, annotator_a):
    subset = draw_baseline(two_sources, 10, seed=3)
    again_ids = set(subset.issues.values_list("pk", flat=True))
    assert len(again_ids) == 10 and not any(two_sources.issues.get(pk=i).kept for i in again_ids)
    queued = set(Assignment.objects.filter(queue__annotator=annotator_a, issue__in=again_ids).values_list(
        "issue_id", flat=True))
    assert queued == again_ids
    groups = subsets_by(two_sources, "subset")
    assert len(groups["baseline"]) == 10 and len(groups["rest of the study"]) == 40
    with pytest.raises(Exception, match="already"):
        draw_baseline(two_sources, 5, seed=3)


def test_the_same_seed_draws_the_same_baseline(two_sources, lead, annotator_a):
    first = set(draw_baseline(two_sources, 10, seed=9, name="one").issues.values_list("pk", flat=True))
    Subset.objects.all().delete()
    two_sources.issues.remove(*first)
    second = set(draw_baseline(two_sources, 10, seed=9, name="two").issues.values_list("pk", flat=True))
    assert first == second


def test_page_csv_command_and_card(client_as, two_sources, lead, annotator_a, capsys):
    client = client_as(lead)
    page = client.get(reverse("findings:comparison", args=[two_sources.pk]), {"by": "source"}).content.decode()
    assert "Cramér's V" in page and "<svg" in page and "adjusted standardised residual" in page
    csv_text = b"".join(client.get(reverse("findings:comparison_csv", args=[two_sources.pk]),
                                   {"by": "source"}).streaming_content).decode()
    assert csv_text.splitlines()[0].startswith("subset,theme,reports,share")
    call_command("compare", two_sources.name, "--by", "source", "--format", "json")
    data = json.loads(capsys.readouterr().out)
    assert data["df"] == 1 and data["subsets"] == ["pytorch/pytorch", "vllm-project/vllm"]
    card_form = {"by": "source", "level": "theme", "once": new_token()}
    client.post(reverse("findings:comparison_card", args=[two_sources.pk]), card_form)
    client.post(reverse("findings:comparison_card", args=[two_sources.pk]), card_form)  # a double click
    assert two_sources.comparisons.count() == 1
    card = client.get(reverse("corpus:dataset_card", args=[two_sources.pk])).content.decode()
    assert "Are subsets labeled differently? By source" in card and "Cramér's V" in card
    assert client_as(annotator_a).get(reverse("findings:comparison", args=[two_sources.pk])).status_code == 403


def test_small_subsets_warn_and_use_an_exact_test(client_as, lead, annotator_a):
    issues = [make_issue() for _ in range(6)]
    study = make_study(lead, [annotator_a], issues=issues)
    for n, issue in enumerate(issues):
        theme = category("C.1" if n < 3 else "C.2")
        FinalLabel.objects.create(study=study, issue=issue, type=theme.parent, theme=theme, method="majority")
    Subset.objects.create(study=study, name="first three").issues.set(issues[:3])
    page = client_as(lead).get(reverse("findings:comparison", args=[study.pk]), {"by": "subset"}).content
    assert 'data-testid="small-expected"' in page.decode() and "Fisher" in page.decode()


def test_the_lead_defines_subsets_by_combined_rules_or_a_list(client_as, two_sources, lead):

    from findings.subsets import define_subset

    llama_in_vllm = define_subset(two_sources, "llama in vLLM", sources=["vllm-project/vllm"], keyword="llama")
    assert llama_in_vllm.issues.count() == 10
    bugs = define_subset(two_sources, "bugs", type_code="C", keyword_group="hardware_precision")
    assert bugs.issues.count() == 20
    first = two_sources.issues.order_by("pk").first()
    listed = define_subset(two_sources, "one", saved_list=f"{first.source.full_name}#{first.number}")
    assert list(listed.issues.all()) == [first]
    with pytest.raises(ComparisonError, match="no report"):
        define_subset(two_sources, "none", years=[1999])
    response = client_as(lead).post(reverse("findings:subset_define", args=[two_sources.pk]),
                                    {"name": "2-line", "saved_list": "nope", "once": new_token()}, follow=True)
    assert "line 1" in response.content.decode()


def test_a_baseline_can_come_from_a_keyword_group_instead(two_sources):
    from ingest.models import Issue

    outside = make_issue(two_sources.issues.first().source)
    outside.matched_keywords.add(Keyword.objects.get(term="bf16"))
    subset = draw_baseline(two_sources, 5, seed=1, name="generic only", keyword_group="hardware_precision")
    assert list(subset.issues.all()) == [outside]
    assert Issue.objects.get(pk=outside.pk) in two_sources.issues.all()
