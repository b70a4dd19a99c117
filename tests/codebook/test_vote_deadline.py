"""A proposal takes votes for a fixed time: the voters are told how many days are left, a vote after the end is
refused, and a proposal that has not passed by then lapses (a vote that never came is not a yes)."""
from __future__ import annotations

from datetime import timedelta

import pytest
from django.db import connection
from django.urls import reverse
from django.utils import timezone, translation

from accounts import notices
from accounts.models import Notice
from codebook.models import Proposal
from codebook.services.proposals import ProposalError, cast_vote, lapse_overdue, open_proposal
from tests.concurrency import at_once
from tests.factories import category

pytestmark = pytest.mark.django_db


def _propose(study, user):
    return open_proposal(study, user, parent_id=category("C.1", study.codebook).pk, name="Tokenizer drift",
                         definition="Tokens differ between framework versions.",
                         example_ids=[study.issues.first().pk])


def _end_in(proposal, delta: timedelta):
    """Move the proposal's end (and its notices', which carry it) as if `delta` were what is left."""
    end = timezone.now() + delta
    Proposal.objects.filter(pk=proposal.pk).update(vote_by=end)
    for notice in Notice.objects.filter(key=f"proposal:{proposal.pk}"):
        notice.params = {**notice.params, "vote_by": end.isoformat()}
        notice.save(update_fields=["params"])
    proposal.refresh_from_db()
    return proposal


def test_a_proposal_takes_votes_for_the_days_the_installation_gives(study, annotator_a, settings):
    settings.PROPOSAL_VOTE_DAYS = 3
    before = timezone.now()
    proposal = _propose(study, annotator_a)
    assert before + timedelta(days=3) <= proposal.vote_by <= timezone.now() + timedelta(days=3)
    assert proposal.days_left() == 3


def test_the_vote_notice_counts_the_days_left_when_it_is_read(study, annotator_a, annotator_b, settings):
    settings.PROPOSAL_VOTE_DAYS = 3
    proposal = _propose(study, annotator_a)
    notice = Notice.objects.get(user=annotator_b, key=f"proposal:{proposal.pk}")
    with translation.override("en"):
        assert notices.text(notice).endswith("awaits your vote, 3 days left.")
    _end_in(proposal, timedelta(hours=5))
    notice.refresh_from_db()
    with translation.override("en"):
        assert notices.text(notice).endswith("awaits your vote, 1 day left.")
    with translation.override("zh-hans"):
        assert notices.text(notice).endswith("等待你投票，还剩 1 天。")
    _end_in(proposal, timedelta(minutes=-1))
    notice.refresh_from_db()
    with translation.override("en"):
        assert notices.text(notice).endswith("awaits your vote: its vote has ended.")


def test_a_notice_written_before_votes_ended_reads_as_it_did(study, annotator_a, annotator_b):
    proposal = _propose(study, annotator_a)
    notice = Notice.objects.get(user=annotator_b, key=f"proposal:{proposal.pk}")
    notice.params = {k: v for k, v in notice.params.items() if k != "vote_by"}
    with translation.override("en"):
        assert notices.text(notice).endswith("in Demo study awaits your vote.")


def test_a_vote_after_the_end_is_refused_and_the_proposal_lapses(study, lead, annotator_a, annotator_b,
                                                                  annotator_c):
    proposal = _propose(study, annotator_a)
    for voter in (lead, annotator_a, annotator_b):
        cast_vote(proposal, voter, True)
    proposal = _end_in(proposal, timedelta(seconds=-1))
    with pytest.raises(ProposalError, match="its vote ended on"):
        cast_vote(proposal, annotator_c, True)
    assert proposal.votes.filter(voter=annotator_c, choice__isnull=True).exists()
    # Three yes and a silence: not unanimous, so it lapses, and nobody is told to vote any more.
    assert lapse_overdue() == 1
    proposal.refresh_from_db()
    assert proposal.status == Proposal.Status.LAPSED and proposal.closing_note.startswith("not every member")
    assert not Notice.objects.filter(key=f"proposal:{proposal.pk}", read_at__isnull=True).exists()
    assert lapse_overdue() == 0


def test_only_proposals_past_their_end_lapse(study, lead, annotator_a, annotator_b, annotator_c):
    running = _propose(study, annotator_a)
    passed = open_proposal(study, annotator_b, parent_id=category("C.1", study.codebook).pk, name="Passed",
                           definition="d", example_ids=[study.issues.first().pk])
    for voter in (lead, annotator_a, annotator_b, annotator_c):
        passed = cast_vote(passed, voter, True)
    _end_in(passed, timedelta(days=-1))
    _end_in(running, timedelta(minutes=1))
    assert lapse_overdue() == 0
    assert Proposal.objects.get(pk=running.pk).is_open
    assert Proposal.objects.get(pk=passed.pk).status == Proposal.Status.PASSED


def test_the_proposal_page_says_until_when_votes_are_taken(study, annotator_a, annotator_b, client_as, settings):
    settings.PROPOSAL_VOTE_DAYS = 5
    proposal = _propose(study, annotator_a)
    url = reverse("codebook:proposal", args=[study.pk, proposal.pk])
    page = client_as(annotator_b).get(url).content.decode()
    assert "(5 days left); a proposal not every member voted yes on by then lapses." in page
    chinese = client_as(annotator_b).get(url, HTTP_ACCEPT_LANGUAGE="zh-hans").content.decode()
    assert "还剩 5 天" in chinese
    _end_in(proposal, timedelta(seconds=-1))
    lapse_overdue()
    chinese = client_as(annotator_b).get(url, HTTP_ACCEPT_LANGUAGE="zh-hans").content.decode()
    assert "截至" in chinese and "未获全体成员赞成" in chinese and "not every member" not in chinese


@pytest.mark.django_db(transaction=True)
@pytest.mark.skipif(connection.vendor != "postgresql", reason="row locks need PostgreSQL (SQLite locks the file)")
def test_the_last_yes_and_the_end_of_the_vote_at_once_give_one_outcome(study, lead, annotator_a, annotator_b,
                                                                       annotator_c):
    outcomes_seen = set()
    for _ in range(5):
        proposal = _propose(study, annotator_a)
        for voter in (lead, annotator_a, annotator_b):
            cast_vote(proposal, voter, True)
        # The last yes comes before the end by its own clock; the beat's look is already past it.
        proposal = _end_in(proposal, timedelta(seconds=2))
        outcomes = at_once(lambda p=proposal: cast_vote(p, annotator_c, True),
                           lambda p=proposal: lapse_overdue(now=p.vote_by + timedelta(seconds=1)))
        proposal.refresh_from_db()
        vote = proposal.votes.get(voter=annotator_c)
        if proposal.status == Proposal.Status.PASSED:
            assert outcomes == [None, None] and vote.choice is True
        else:
            assert proposal.status == Proposal.Status.LAPSED
            assert isinstance(outcomes[0], ProposalError) and vote.choice is None
        outcomes_seen.add(proposal.status)
    assert outcomes_seen <= {Proposal.Status.PASSED, Proposal.Status.LAPSED}
