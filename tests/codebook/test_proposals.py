"""Categories grow only by a unanimous vote of the study's members, and only the lead adds a passed one."""
from __future__ import annotations

import threading

import pytest
from django.core.exceptions import PermissionDenied
from django.db import connection, connections
from django.urls import reverse

from annotation.services.studies import add_member
from codebook.models import Proposal
from codebook.selectors import tally
from codebook.services.changes import apply_proposal
from codebook.services.proposals import ProposalError, cast_vote, lapse, open_proposal
from taxonomy.services import CodebookError
from tests.factories import category, make_user

pytestmark = pytest.mark.django_db


def _propose(study, user, name="Tokenizer drift"):
    return open_proposal(study, user, parent_id=category("C.1", study.codebook).pk, name=name,
                         definition="Tokens differ between framework versions.",
                         example_ids=[study.issues.first().pk])


def test_every_yes_passes_and_the_proposer_sees_only_the_tally(study, lead, annotator_a, annotator_b, annotator_c):
    proposal = _propose(study, annotator_a)
    assert tally(proposal) == (0, 0, 4)
    for voter in (lead, annotator_a, annotator_b):
        proposal = cast_vote(proposal, voter, True)
        assert proposal.status == Proposal.Status.OPEN
    proposal = cast_vote(proposal, annotator_c, True, "agreed")
    assert proposal.status == Proposal.Status.PASSED and proposal.closed_at is not None


def test_a_single_no_rejects_at_once(study, lead, annotator_a, annotator_b):
    proposal = _propose(study, annotator_a)
    cast_vote(proposal, lead, True)
    proposal = cast_vote(proposal, annotator_b, False, "overlaps C.1.ii")
    assert proposal.status == Proposal.Status.REJECTED
    with pytest.raises(ProposalError, match="rejected; votes can no longer be cast"):
        cast_vote(proposal, annotator_a, True)


def test_a_vote_cannot_be_cast_twice(study, annotator_a):
    proposal = _propose(study, annotator_a)
    cast_vote(proposal, annotator_a, True)
    with pytest.raises(ProposalError, match="cannot be changed"):
        cast_vote(proposal, annotator_a, False)


def test_a_member_who_joined_later_is_not_in_the_electorate(study, lead, annotator_a, annotator_b, annotator_c):
    proposal = _propose(study, annotator_a)
    late = make_user("late")
    add_member(study, late)
    with pytest.raises(PermissionDenied):
        cast_vote(proposal, late, True)
    for voter in (lead, annotator_a, annotator_b, annotator_c):
        proposal = cast_vote(proposal, voter, True)
    assert proposal.status == Proposal.Status.PASSED


def test_a_retired_members_missing_vote_blocks_until_the_lead_lets_it_lapse(study, lead, annotator_a, annotator_b,
                                                                            annotator_c):
    proposal = _propose(study, annotator_a)
    annotator_c.is_active = False  # charlie left the study
    annotator_c.save()
    for voter in (lead, annotator_a, annotator_b):
        proposal = cast_vote(proposal, voter, True)
    assert proposal.status == Proposal.Status.OPEN and tally(proposal).pending == 1
    with pytest.raises(PermissionDenied):
        lapse(proposal, annotator_a, "charlie left")
    proposal = lapse(proposal, lead, "charlie left the study and cannot vote")
    assert proposal.status == Proposal.Status.LAPSED
    with pytest.raises(CodebookError, match="only a proposal every member voted for"):
        apply_proposal(proposal, lead)


def test_only_the_lead_adds_and_only_a_passed_proposal(study, lead, annotator_a, annotator_b, annotator_c):
    proposal = _propose(study, annotator_a)
    with pytest.raises(CodebookError, match="only a proposal every member voted for"):
        apply_proposal(proposal, lead)
    for voter in (lead, annotator_a, annotator_b, annotator_c):
        proposal = cast_vote(proposal, voter, True)
    # The study in the fixture shares the shipped codebook; a study gets its own copy to change.
    from taxonomy.services import copy_codebook

    study.codebook = copy_codebook(study.codebook, "own")
    study.save()
    proposal.parent = study.codebook.categories.get(code="C.1")
    proposal.save()
    with pytest.raises(PermissionDenied):
        apply_proposal(proposal, annotator_a)
    added = apply_proposal(proposal, lead)
    assert added.parent.code == "C.1" and added.name == "Tokenizer drift"
    change = study.codebook.changes.get()
    assert (change.kind, change.proposal, change.revision) == ("add", proposal, 2)


def test_proposals_need_the_independent_round_a_definition_and_an_example(study, annotator_a):
    with pytest.raises(ProposalError, match="examples"):
        open_proposal(study, annotator_a, parent_id=category("C.1").pk, name="X", definition="d", example_ids=[])
    with pytest.raises(ProposalError, match="definition"):
        open_proposal(study, annotator_a, parent_id=category("C.1").pk, name="X", definition=" ",
                      example_ids=[study.issues.first().pk])
    with pytest.raises(ProposalError, match="already has a category"):
        _propose(study, annotator_a, name=category("C.1.i").name)


@pytest.mark.django_db(transaction=True)
@pytest.mark.skipif(connection.vendor != "postgresql", reason="row locks need PostgreSQL (SQLite locks the file)")
def test_two_last_votes_at_once_give_exactly_one_outcome(study, lead, annotator_a, annotator_b, annotator_c):
    proposal = _propose(study, annotator_a)
    cast_vote(proposal, lead, True)
    cast_vote(proposal, annotator_a, True)
    gate = threading.Barrier(2)
    errors = []

    def vote(user, yes):
        try:
            gate.wait()
            cast_vote(proposal, user, yes)
        except Exception as exc:  # noqa: BLE001 - collected and asserted on below
            errors.append(exc)
        finally:
            connections.close_all()

    threads = [threading.Thread(target=vote, args=(annotator_b, True)),
               threading.Thread(target=vote, args=(annotator_c, True))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    proposal.refresh_from_db()
    assert errors == [] and proposal.status == Proposal.Status.PASSED
    assert tally(proposal) == (4, 0, 0)


def test_pasted_examples_keep_every_line_and_name_what_is_not_a_report(study, annotator_a, client_as):
    """Two pasted lines kept only the last report, without a word."""
    one, two, _ = study.issues.order_by("created_at", "id")
    parent = study.codebook.categories.get(code="C")
    url = reverse("codebook:proposals", args=[study.pk])
    form = {"parent": parent.pk, "name": "Tokenizer faults", "definition": "Wrong tokens."}
    client = client_as(annotator_a)
    response = client.post(url, {**form, "examples": f"#{one.number}\nnot a report"})
    assert response.status_code == 400 and "line 2: &#x27;not a report&#x27; is not a report number" in \
        response.content.decode()
    response = client.post(url, {**form, "examples": f"{one.number}\n#{two.number}, 99999"})
    assert response.status_code == 400 and "#99999 is not a report of this study" in response.content.decode()
    assert not Proposal.objects.exists()
    response = client.post(url, {**form, "examples": f"{one.url}\n#{two.number}\n"})
    assert response.status_code == 302
    assert set(Proposal.objects.get().examples.all()) == {one, two}
    assert '<textarea name="examples"' in client.get(url).content.decode()


def test_examples_take_owner_repo_number_as_every_other_field_does(study, annotator_a, client_as):
    one, two, _ = study.issues.order_by("created_at", "id")
    parent = study.codebook.categories.get(code="C")
    url = reverse("codebook:proposals", args=[study.pk])
    form = {"parent": parent.pk, "name": "Tokenizer faults", "definition": "Wrong tokens."}
    client = client_as(annotator_a)
    response = client.post(url, {**form, "examples": f"other/repo#{one.number}"})
    assert response.status_code == 400 and f"other/repo#{one.number} is not a report of this study" in \
        response.content.decode()
    response = client.post(url, {**form, "examples": f"{one.source.full_name}#{one.number}, {two.url}"})
    assert response.status_code == 302
    assert set(Proposal.objects.get().examples.all()) == {one, two}


def test_named_examples_are_found_in_one_query_whatever_the_repositorys_case(study, django_assert_num_queries):
    from codebook.selectors import reports_numbered

    one, two, _ = study.issues.order_by("created_at", "id")
    refs = [f"{one.source.full_name.upper()}#{one.number}", f"{two.source.full_name}#{two.number}", one.number]
    with django_assert_num_queries(1):
        assert set(reports_numbered(study, refs)) == {one.pk, two.pk}
