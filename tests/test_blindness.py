"""Blind means blind: during an open round an annotator sees no other annotator's label, count or figure."""
from __future__ import annotations

import re

import pytest
from django.urls import URLPattern, URLResolver, get_resolver, reverse

from tests.factories import label_with

pytestmark = pytest.mark.django_db

# Whole words, so a random CSRF token can never match by chance.
SECRETS = re.compile(r"SECRET-NOTE-OF-BOB|SECRET-NOTE-OF-CHARLIE|\bbob\b|\bcharlie\b")
# The lead manages the members, so their names are on the lead's pages (members, who still has labels to give);
# what they labeled is not.
NOTES = re.compile(r"SECRET-NOTE-OF-BOB|SECRET-NOTE-OF-CHARLIE|alice&#x27;s own note|alice's own note")


def _walk(patterns, prefix="", namespace=""):
    for p in patterns:
        if isinstance(p, URLResolver):
            ns = f"{namespace}{p.namespace}:" if p.namespace else namespace
            yield from _walk(p.url_patterns, prefix + str(p.pattern), ns)
        elif isinstance(p, URLPattern) and p.name:
            yield f"{namespace}{p.name}", prefix + str(p.pattern), p


def _urls_to_visit(study, issue):
    values = {"study_id": study.pk, "issue_id": issue.pk, "category_id": study.codebook.categories.get(code="C.1").pk,
              "fmt": "json"}
    for name, _route, pattern in _walk(get_resolver().url_patterns):
        if name.startswith("admin:") or name == "logout":
            continue
        converters = set(pattern.pattern.converters)
        if converters <= set(values):
            yield name, reverse(name, kwargs={k: values[k] for k in converters})


@pytest.fixture
def open_round(study, annotator_a, annotator_b, annotator_c):
    issue = study.issues.order_by("created_at", "id").first()
    label_with(annotator_b, study, issue, "C.1", note="SECRET-NOTE-OF-BOB")
    label_with(annotator_c, study, issue, "C.2", note="SECRET-NOTE-OF-CHARLIE")
    label_with(annotator_a, study, issue, "C.1", note="alice's own note")
    return study, issue


@pytest.mark.parametrize("htmx", [False, True], ids=["page", "htmx"])
@pytest.mark.parametrize("who", ["annotator", "lead labeling blind"])
def test_every_page_and_endpoint_hides_other_annotators(client_as, open_round, annotator_a, lead, who, htmx):
    study, issue = open_round
    if who == "lead labeling blind":
        study.lead_labels_blind = True
        study.save()
        label_with(lead, study, issue, "C.3", note="the lead's own")
    client = client_as(annotator_a if who == "annotator" else lead)
    headers = {"HX-Request": "true"} if htmx else {}
    visited = set()
    for name, url in _urls_to_visit(study, issue):
        response = client.get(url, headers=headers)
        assert response.status_code < 500, url
        body = b"".join(response.streaming_content) if response.streaming else response.content
        text = body.decode("utf-8", "replace")
        leak = (SECRETS if who == "annotator" else NOTES).search(text)
        assert leak is None, f"{url} shows {leak and leak.group()!r}"
        if name != "api:schema":  # the schema documents the word, it holds no figure
            assert "kappa" not in text.lower() and "κ" not in text, f"{url} shows an agreement figure"
        visited.add(name)
    # The walk must have reached the pages that could leak, or it proves nothing.
    assert {"annotation:queue", "annotation:issue_label", "annotation:issue_list", "annotation:report",
            "api:label_list", "api:study_agreement", "agreement:study_agreement", "annotation:study_export_csv",
            "api:study_list", "annotation:study_detail", "annotation:review_list", "annotation:history",
            "annotation:history_csv", "annotation:members", "annotation:study_settings", "annotation:previous",
            "api:study_detail", "annotation:adjudication_list", "annotation:adjudicate",
            "api:report_list", "api:report_detail", "api:queue_next", "api:label_history",
            "api:comment_list", "codebook:codebook", "codebook:changelog", "codebook:proposals",
            "codebook:details", "codebook:details_csv", "codebook:export", "corpus:corpus_csv",
            "corpus:corpus_jsonl", "corpus:study_json", "corpus:dataset_card", "findings:statistics",
            "findings:table1_csv", "findings:figure3_csv", "interviews:interviews", "interviews:interview_results",
            "interviews:interview_results_csv", "interviews:guide", "findings:comparison",
            "findings:comparison_csv"} <= visited


def test_api_lists_only_the_annotators_own_labels(client_as, open_round, annotator_a):
    study, _ = open_round
    data = client_as(annotator_a).get(reverse("api:label_list", args=[study.pk])).json()
    assert [row["annotator"] for row in data["results"]] == ["alice"]


def test_lead_sees_every_label(client_as, open_round, lead):
    study, _ = open_round
    data = client_as(lead).get(reverse("api:label_list", args=[study.pk])).json()
    assert sorted(row["annotator"] for row in data["results"]) == ["alice", "bob", "charlie"]


@pytest.mark.parametrize("name", ["agreement:study_agreement", "api:study_agreement", "annotation:study_export_csv"])
def test_agreement_and_export_are_forbidden_to_annotators(client_as, open_round, annotator_a, name):
    study, _ = open_round
    assert client_as(annotator_a).get(reverse(name, args=[study.pk])).status_code == 403


def test_revisiting_a_labeled_report_shows_only_ones_own_label(client_as, open_round, annotator_a):
    study, issue = open_round
    page = client_as(annotator_a).get(reverse("annotation:issue_label", args=[study.pk, issue.pk])).content.decode()
    assert "alice&#x27;s own note" in page
