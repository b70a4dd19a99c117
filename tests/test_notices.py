"""Notices: a proposal awaiting one's vote, ties waiting for the lead's decision, a comment on a report one
labeled. Each reaches the people it concerns (and no one who switched its kind off), once per thing, in the
language of whoever reads it, and is settled when the thing is done."""
from __future__ import annotations

import pytest
from django.db import connection
from django.urls import reverse
from django.utils import timezone, translation

from accounts import notices
from accounts.models import Notice
from annotation.services.phases import advance
from annotation.services.review import post_comment
from codebook.services.proposals import cast_vote, open_proposal
from tests.concurrency import at_once
from tests.factories import category, label_with, make_issue, make_study, make_user

pytestmark = pytest.mark.django_db


@pytest.fixture
def people():
    lead, ann, bob = make_user("lead"), make_user("ann"), make_user("bob")
    issues = [make_issue(title=f"Report {n}") for n in range(2)]
    study = make_study(lead, [ann, bob], issues=issues, name="Study of LLM bugs")
    return study, lead, ann, bob, issues


def _propose(study, by, issues):
    return open_proposal(study, by, parent_id=category("C", study.codebook).pk, name="Drift",
                         definition="Tokens differ.", example_ids=[issues[0].pk])


def _unread(user) -> list[str]:
    return [notices.text(n) for n in Notice.objects.filter(user=user, read_at__isnull=True)]


def test_a_proposal_tells_every_other_voter_and_a_vote_settles_ones_own(people):
    study, lead, ann, bob, issues = people
    proposal = _propose(study, ann, issues)
    assert _unread(ann) == []
    assert _unread(bob) == ["“Drift” under C Bug in Study of LLM bugs awaits your vote, 14 days left."]
    with translation.override("zh-hans"):
        assert _unread(lead) == ["“Study of LLM bugs”中 C Bug 下的“Drift”等待你投票，还剩 14 天。"]
    cast_vote(proposal, bob, True)
    assert _unread(bob) == [] and len(_unread(lead)) == 1
    # One no closes the proposal: no vote is awaited any more.
    cast_vote(proposal, lead, False)
    assert Notice.objects.filter(read_at__isnull=True).count() == 0


def test_a_kind_switched_off_does_not_reach_and_one_thing_is_one_notice(people):
    study, lead, ann, bob, issues = people
    notices.switch(bob, {"vote"})
    _propose(study, ann, issues)
    assert _unread(bob) == [] and len(_unread(lead)) == 1
    # The same thing told again brings the unread notice up to date rather than adding one.
    notices.notify([lead], "vote", Notice.objects.get(user=lead).key, {"proposal": "Drift 2", "parent": "C Bug",
                                                                      "study": study.name})
    assert _unread(lead) == ["“Drift 2” under C Bug in Study of LLM bugs awaits your vote."]


def test_ties_tell_the_lead_and_a_comment_tells_who_labeled_the_report(people):
    study, lead, ann, bob, issues = people
    for person, code in ((lead, "C.1"), (ann, "C.2"), (bob, "C.3")):  # tied at the theme
        label_with(person, study, issues[0], code)
    label_with(ann, study, issues[1], "A.1")
    study = advance(study, lead, confirm_missing=True)  # the review
    secret = "I think it is a memory leak"
    post_comment(ann, study.current_round, issues[0].pk, secret)
    told = Notice.objects.filter(kind="comment")
    assert sorted(n.user.username for n in told) == ["bob", "lead"]
    assert _unread(bob) == [f"ann commented on {issues[0].source} #{issues[0].number}, which you labeled, in "
                            "Study of LLM bugs."]
    # A notice names who and where, never what was said or labeled.
    assert all(secret not in str(n.params) and "C.1" not in str(n.params) for n in Notice.objects.all())
    study = advance(study, lead)  # adjudication
    assert "The reports of Study of LLM bugs still tied after the review wait for your decision." in _unread(lead)
    assert not Notice.objects.filter(kind="ties").exclude(user=lead).exists()


def test_the_inbox_reads_what_it_showed_and_no_more(people, client):
    study, lead, ann, bob, issues = people
    _propose(study, ann, issues)
    client.force_login(bob)
    page = client.get(reverse("annotation:study_list")).content.decode()
    assert 'data-testid="notice-badge">1 notice</a>' in page
    inbox = client.get(reverse("notices"))
    shown = inbox.context["newest"]
    assert "awaits your vote" in inbox.content.decode()
    later = Notice.objects.create(user=bob, kind="ties", key="ties:x", params={"study": "S"},
                                  created_at=Notice.objects.get(user=bob).created_at)
    client.post(reverse("notices_read"), {"newest": shown})
    assert list(Notice.objects.filter(user=bob, read_at__isnull=True)) == [later]
    page = client.get(reverse("notices"), HTTP_ACCEPT_LANGUAGE="zh-CN").content.decode()
    assert "<h1>通知</h1>" in page


@pytest.mark.parametrize("field, value", [("newest", "abc"), ("newest", "1\x00"), ("newest", "9" * 40),
                                          ("on", "everything"), ("on", "vote\x00")])
def test_hostile_inbox_forms_change_nothing(people, client, field, value):
    study, lead, ann, bob, issues = people
    _propose(study, ann, issues)
    client.force_login(bob)
    url = reverse("notices_read" if field == "newest" else "notices_kinds")
    answer = client.post(url, {field: value})
    assert answer.status_code == 400 and field.encode() in answer.content
    assert Notice.objects.get(user=bob).read_at is None and notices.switched_off(bob) == set()


def test_a_person_chooses_which_kinds_reach_them(people, client):
    study, lead, ann, bob, issues = people
    client.force_login(bob)
    client.post(reverse("notices_kinds"), {"on": sorted(set(notices.KINDS) - {"vote"})})
    assert notices.switched_off(bob) == {"vote"}
    _propose(study, ann, issues)
    assert _unread(bob) == []


@pytest.mark.django_db(transaction=True)
@pytest.mark.skipif(connection.vendor != "postgresql", reason="two writers at once need PostgreSQL")
def test_two_comments_at_once_leave_one_notice_and_both_comments(people):
    study, lead, ann, bob, issues = people
    for person, code in ((lead, "C.1"), (ann, "C.2"), (bob, "C.3")):
        label_with(person, study, issues[0], code)
    study = advance(study, lead, confirm_missing=True)
    for _ in range(4):
        outcomes = at_once(lambda: post_comment(ann, study.current_round, issues[0].pk, "one"),
                           lambda: post_comment(bob, study.current_round, issues[0].pk, "two"))
        assert outcomes == [None, None]
        # lead labeled the report: one unread notice of its thread, however the two comments met.
        assert Notice.objects.filter(user=lead, key=f"comment:{study.pk}:{issues[0].pk}",
                                     read_at__isnull=True).count() == 1
        Notice.objects.update(read_at=timezone.now())


def test_a_notice_read_before_its_thing_was_settled_says_it_is_settled(people, client):
    """Bob reads "awaits your vote", then the proposal passes: the inbox shows it settled, not waiting; unread,
    read and settled notices each look different, in words as well as in weight."""
    import lxml.html

    study, lead, ann, bob, issues = people
    proposal = _propose(study, ann, issues)
    client.force_login(bob)
    notices.read_up_to(bob, Notice.objects.filter(user=bob).latest("pk").pk)
    notices.notify([bob], "ties", "ties:other", {"study": "Other"})  # unread, and never settled
    cast_vote(proposal, bob, True)
    cast_vote(proposal, lead, True)  # every member voted yes: passed
    page = lxml.html.fromstring(client.get(reverse("notices")).content)
    rows = {li.get("class"): li.text_content() for li in page.find_class("notices")[0].iter("li")}
    assert set(rows) == {"settled", "unread"}, rows
    assert "Settled" in rows["settled"] and "awaits your vote" in rows["settled"] and "New" in rows["unread"]
    notices.read_up_to(bob, Notice.objects.filter(user=bob).latest("pk").pk)
    page = lxml.html.fromstring(client.get(reverse("notices")).content)
    assert {li.get("class") for li in page.find_class("notices")[0].iter("li")} == {"settled", "read"}
