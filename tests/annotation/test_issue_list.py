from __future__ import annotations

import pytest
from django.urls import reverse

from tests.factories import label_with, make_issue, make_study

pytestmark = pytest.mark.django_db


@pytest.fixture
def listed(lead, annotator_a, annotator_b):
    issues = [make_issue(title=t) for t in ("vLLM OOM on A100", "Add Gemma support", "Docs typo")]
    study = make_study(lead, [annotator_a, annotator_b], issues=issues)
    label_with(annotator_a, study, issues[0], "C.2.iv")
    label_with(annotator_b, study, issues[1], "B.2")
    return study, issues


def _page(client, study, **params):
    return client.get(reverse("annotation:issue_list", args=[study.pk]), params).content.decode()


def test_annotator_sees_the_reports_and_only_their_own_labels(client_as, listed, annotator_a):
    study, _ = listed
    page = _page(client_as(annotator_a), study)
    assert all(t in page for t in ("vLLM OOM on A100", "Add Gemma support", "Docs typo"))
    assert "C.2.iv" in page
    assert "B.2" not in page and "Labels (all members)" not in page


def test_lead_sees_how_many_labels_each_report_has(client_as, listed, lead):
    page = _page(client_as(lead), listed[0])
    assert "Labels (all members)" in page


def test_search_and_filter_by_own_progress(client_as, listed, annotator_a):
    study, _ = listed
    client = client_as(annotator_a)
    assert "Gemma" in _page(client, study, q="gemma") and "Docs typo" not in _page(client, study, q="gemma")
    todo = _page(client, study, mine="todo")
    assert "vLLM OOM" not in todo and "Gemma" in todo and "Docs typo" in todo
    assert "vLLM OOM" in _page(client, study, mine="done")


def test_htmx_search_returns_only_the_results_fragment(client_as, listed, annotator_a):
    study, _ = listed
    response = client_as(annotator_a).get(reverse("annotation:issue_list", args=[study.pk]), {"q": "docs"},
                                          headers={"HX-Request": "true"})
    html = response.content.decode()
    assert "<html" not in html and 'id="results"' in html and "Docs typo" in html


def test_with_overlap_k_an_annotator_lists_only_their_queue(client_as, lead, annotator_a, annotator_b):
    from annotation.models import Assignment
    from annotation.services.studies import create_study
    from tests.factories import codebook

    study = create_study(name="Overlap one", codebook=codebook(), issues=[make_issue() for _ in range(6)],
                         lead=lead, annotators=[annotator_a, annotator_b], overlap=1)
    mine = set(Assignment.objects.filter(queue__annotator=annotator_a).values_list("issue__title", flat=True))
    assert 0 < len(mine) < 6
    page = client_as(annotator_a).get(reverse("annotation:issue_list", args=[study.pk])).content.decode()
    listed = {title for title in study.issues.values_list("title", flat=True) if f">{title}<" in page}
    assert listed == mine
    api = client_as(annotator_a).get(reverse("api:report_list", args=[study.pk])).json()
    assert {r["title"] for r in api["results"]} == mine
    assert client_as(lead).get(reverse("api:report_list", args=[study.pk])).json()["count"] == 6
