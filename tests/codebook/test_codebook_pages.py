"""The codebook as people use it: the tree with definitions, search, proposals and votes from the pages, the
header badge, the change log as a table, explanatory details; blind rules on counts and notes."""
from __future__ import annotations

import csv
import io

import pytest
from django.urls import reverse

from codebook.models import Proposal
from codebook.services import changes
from taxonomy.services import copy_codebook
from tests.factories import label_with

pytestmark = pytest.mark.django_db


@pytest.fixture
def own(study):
    study.codebook = copy_codebook(study.codebook, "own")
    study.save()
    return study


def test_the_tree_shows_definitions_and_search_narrows_it(client_as, own, annotator_a):
    client = client_as(annotator_a)
    page = client.get(reverse("codebook:codebook", args=[own.pk])).content.decode()
    c1 = own.codebook.categories.get(code="C.1")
    assert c1.name in page and c1.definition in page and "C.10" in page
    found = client.get(reverse("codebook:codebook", args=[own.pk]), {"q": "quantiz"}).content.decode()
    assert "<mark>" in found and "A.1 " not in found.split('data-testid="codebook"')[1]


def test_label_counts_and_notes_are_the_leads_while_blind(client_as, own, lead, annotator_a, annotator_b):
    label_with(annotator_b, own, own.issues.first(), "C.1", note="bob saw an OOM")
    c1 = own.codebook.categories.get(code="C.1")
    assert "1 label" in client_as(lead).get(reverse("codebook:codebook", args=[own.pk])).content.decode()
    assert " label" not in client_as(annotator_a).get(reverse("codebook:codebook", args=[own.pk])).content.decode()
    details = reverse("codebook:details", args=[own.pk, c1.pk])
    assert "bob saw an OOM" in client_as(lead).get(details).content.decode()
    assert "bob saw an OOM" not in client_as(annotator_a).get(details).content.decode()


def test_proposing_and_voting_through_the_pages_with_the_badge(client_as, own, lead, annotator_a, annotator_b,
                                                               annotator_c):
    issue = own.issues.first()
    c1 = own.codebook.categories.get(code="C.1")
    response = client_as(annotator_a).post(reverse("codebook:proposals", args=[own.pk]), {
        "parent": c1.pk, "name": "Tokenizer drift", "definition": "Tokens differ.", "examples": issue.number})
    proposal = Proposal.objects.get()
    assert response.status_code == 302
    assert 'data-testid="vote-badge">1 vote waiting' in client_as(annotator_b).get(reverse("codebook:my_votes")) \
        .content.decode()
    for voter in (lead, annotator_a, annotator_b):
        client_as(voter).post(reverse("codebook:proposal", args=[own.pk, proposal.pk]), {"choice": "yes"})
    open_page = client_as(annotator_a).get(reverse("codebook:proposal", args=[own.pk, proposal.pk])).content.decode()
    assert "Yes 3 · no 0 · not yet 1" in open_page and "charlie" not in open_page  # who voted what stays hidden
    client_as(annotator_c).post(reverse("codebook:proposal", args=[own.pk, proposal.pk]), {"choice": "yes"})
    proposal.refresh_from_db()
    assert proposal.status == "passed"
    client_as(lead).post(reverse("codebook:proposal", args=[own.pk, proposal.pk]), {"action": "apply",
                                                                                   "revision": own.codebook.revision})
    assert own.codebook.categories.filter(name="Tokenizer drift", parent=c1).exists()
    log = client_as(annotator_a).get(reverse("codebook:changelog", args=[own.pk])).content.decode()
    assert "Tokenizer drift" in log and "(unanimous)" in log


def test_a_proposal_without_an_example_is_refused_with_a_message(client_as, own, annotator_a):
    c1 = own.codebook.categories.get(code="C.1")
    response = client_as(annotator_a).post(reverse("codebook:proposals", args=[own.pk]), {
        "parent": c1.pk, "name": "X", "definition": "Y", "examples": "999999"})
    assert response.status_code == 400 and "#999999 is not a report of this study" in response.content.decode()
    assert not Proposal.objects.exists()


def test_the_lead_changes_a_category_from_the_page(client_as, own, lead):
    c2 = own.codebook.categories.get(code="C.2")
    client_as(lead).post(reverse("codebook:change", args=[own.pk, c2.pk]),
                         {"kind": "rename", "name": "Memory", "reason": "shorter", "revision": 1})
    c2.refresh_from_db()
    assert c2.name == "Memory"
    response = client_as(lead).post(reverse("codebook:change", args=[own.pk, c2.pk]),
                                    {"kind": "rename", "name": "X", "reason": "", "revision": 2}, follow=True)
    assert "needs a reason" in response.content.decode()


def test_curated_details_are_exported(client_as, own, lead, annotator_a):
    issue = own.issues.first()
    c1 = own.codebook.categories.get(code="C.1")
    client_as(lead).post(reverse("codebook:details", args=[own.pk, c1.pk]),
                         {"text": "Build fails on CUDA 12", "examples": issue.number})
    # Curated from annotators' notes, with the reports that carried them: not for annotators while blind.
    assert client_as(annotator_a).get(reverse("codebook:details_csv", args=[own.pk])).status_code == 403
    page = client_as(annotator_a).get(reverse("codebook:details", args=[own.pk, c1.pk])).content.decode()
    assert "Build fails on CUDA 12" not in page
    response = client_as(lead).get(reverse("codebook:details_csv", args=[own.pk]))
    rows = list(csv.DictReader(io.StringIO(b"".join(response.streaming_content).decode())))
    assert rows == [{"type": "Bug", "theme": c1.name, "sub_theme": "", "code": "C.1", "category": c1.name,
                     "detail": "Build fails on CUDA 12", "example_reports": issue.url}]
    assert client_as(annotator_a).post(reverse("codebook:details", args=[own.pk, c1.pk]),
                                       {"text": "sneaky"}).status_code == 403


def test_retired_categories_leave_the_labeling_page(client_as, own, lead, annotator_a):
    c2 = own.codebook.categories.get(code="C.2")
    changes.retire(own, lead, c2.pk, "folded into C.1")
    page = client_as(annotator_a).get(reverse("annotation:queue", args=[own.pk])).content.decode()
    assert f'value="{c2.pk}"' not in page


def test_the_reason_concord_writes_for_a_pilot_category_is_shown_in_the_readers_language(client_as, own, lead):
    from annotation.models import Study

    own.phase = Study.Phase.PILOT
    own.save(update_fields=["phase"])
    parent = own.codebook.categories.get(code="C.2")
    changes.add_in_pilot(own, lead, parent.pk, "Pinned memory", "Pinned host memory is never freed.")
    changes.add_in_pilot(own, lead, parent.pk, "Swap", "Swapping to disk.", reason="seen twice in the pilot")
    url = reverse("codebook:changelog", args=[own.pk])
    chinese = client_as(lead).get(url, HTTP_ACCEPT_LANGUAGE="zh-hans").content.decode()
    assert "试标注期间添加" in chinese and "added during the pilot" not in chinese
    assert "seen twice in the pilot" in chinese  # a lead's own reason is shown as written
    assert "added during the pilot" in client_as(lead).get(url, HTTP_ACCEPT_LANGUAGE="en").content.decode()
