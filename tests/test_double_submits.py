"""A click happens once: every state-changing action names the state it expects, so a double
click, a resent form, or two people at once change it once. The concurrent cases run two threads on PostgreSQL;
the sequential ones (the second click after the first) run everywhere."""
from __future__ import annotations

import pytest
from django.db import connection
from django.urls import reverse

from annotation.models import FinalLabel, Invitation, Study
from annotation.services.adjudication import decide
from annotation.services.labels import LabelError, LabelInput
from annotation.services.phases import PhaseError, advance
from codebook.models import Proposal
from codebook.services import changes
from codebook.services.proposals import cast_vote as vote
from codebook.services.proposals import open_proposal
from concord.form_tokens import new_token
from ingest.models import Keyword, KeywordList, ScreeningSample, Source
from ingest.services.screening import ScreeningError, cast_vote, decide_keyword, draw_keyword_sample
from taxonomy.models import Category
from taxonomy.services import CodebookError, copy_codebook
from tests.concurrency import at_once
from tests.factories import category, label_with, make_issue, make_user

needs_postgresql = pytest.mark.skipif(connection.vendor != "postgresql",
                                      reason="row locks need PostgreSQL (SQLite locks the file)")


def _shown(study) -> dict:
    study.refresh_from_db()
    return {"expected_phase": study.phase, "expected_round": study.current_round.number}


# Sequential: the second click of a double click finds the state moved.

@pytest.mark.django_db
def test_a_double_click_on_advance_moves_the_study_one_phase(client_as, study, lead):
    shown = {"confirm": "yes", **_shown(study)}
    client = client_as(lead)
    client.post(reverse("annotation:study_advance", args=[study.pk]), shown)
    response = client.post(reverse("annotation:study_advance", args=[study.pk]), shown, follow=True)
    assert "has moved on since this page was shown" in response.content.decode()
    assert Study.objects.get(pk=study.pk).phase == Study.Phase.REVIEW
    # A form that names no state is refused too.
    response = client.post(reverse("annotation:study_advance", args=[study.pk]), {"confirm": "yes"}, follow=True)
    assert "did not say which phase" in response.content.decode()
    assert Study.objects.get(pk=study.pk).phase == Study.Phase.REVIEW


@pytest.mark.django_db
def test_a_codebook_change_sent_twice_changes_once(client_as, study, lead):
    study.codebook = copy_codebook(study.codebook, "own")
    study.save()
    c2 = study.codebook.categories.get(code="C.2")
    form = {"kind": "rename", "name": "Memory", "reason": "shorter", "revision": study.codebook.revision}
    client = client_as(lead)
    client.post(reverse("codebook:change", args=[study.pk, c2.pk]), form)
    response = client.post(reverse("codebook:change", args=[study.pk, c2.pk]), {**form, "name": "Mem"}, follow=True)
    assert "revision 2 now, not 1" in response.content.decode()
    c2.refresh_from_db()
    assert c2.name == "Memory" and study.codebook.changes.count() == 1


@pytest.mark.django_db
def test_a_decision_sent_twice_is_refused_the_second_time(client_as, study, lead, annotator_a):
    issue = study.issues.first()
    advance(study, lead, confirm_missing=True)
    advance(study, lead, confirm_missing=True)
    url = reverse("annotation:adjudicate", args=[study.pk, issue.pk])
    form = {"type": category("C").pk, "theme": category("C.1").pk, "rationale": "It crashes.", "expected": "none"}
    assert client_as(lead).post(url, form).status_code == 302
    second = client_as(lead).post(url, {**form, "theme": category("C.2").pk})
    assert second.status_code == 400 and "changed since the page was shown" in second.content.decode()
    assert FinalLabel.objects.get(issue=issue).theme.code == "C.1" and FinalLabel.history.count() == 1


@pytest.fixture
def decided_sample(db):
    a, b, c = make_user("scr-a"), make_user("scr-b"), make_user("scr-c")
    keyword = KeywordList.objects.create(name="k").keywords.create(term="llm", status=Keyword.Status.CANDIDATE)
    source = Source.objects.create(full_name="o/r", keyword_list=keyword.keyword_list)
    make_issue(source, title="llm one")
    # A second match left out of the sample: one verdict of two cannot settle the keyword, an admin decides.
    make_issue(source, title="llm two")
    sample = draw_keyword_sample(keyword, (a, b, c), seed=1, size=1)
    for screener in (a, b):
        cast_vote(screener, sample.items.get(), True)
    return sample, make_user("boss", is_staff=True)


@pytest.mark.django_db
def test_a_keyword_is_decided_once(client_as, decided_sample):
    sample, boss = decided_sample
    client = client_as(boss)
    client.post(reverse("ingest:sample_decide", args=[sample.pk]), {"accept": "1", "expected_status": "open"})
    response = client.post(reverse("ingest:sample_decide", args=[sample.pk]), {"reject": "1",
                                                                               "expected_status": "open"},
                           follow=True)
    assert "decided already" in response.content.decode()
    sample.refresh_from_db()
    assert sample.status == ScreeningSample.Status.ACCEPTED and sample.keyword.status == Keyword.Status.ACCEPTED


@pytest.mark.django_db
def test_an_invitation_form_sent_twice_makes_one_link(client_as, study, lead):
    form = {"role": "annotator", "days": 3, "note": "Dana", "once": new_token()}
    client = client_as(lead)
    assert "invitation-link" in client.post(reverse("annotation:invitation_create", args=[study.pk]), form)\
        .content.decode()
    again = client.post(reverse("annotation:invitation_create", args=[study.pk]), form, follow=True)
    assert "sent already" in again.content.decode() and Invitation.objects.count() == 1
    without = client.post(reverse("annotation:invitation_create", args=[study.pk]), {**form, "once": ""},
                          follow=True)
    assert "no valid one-time token" in without.content.decode() and Invitation.objects.count() == 1


@pytest.mark.django_db
def test_a_sample_form_sent_twice_draws_once(client_as, decided_sample):
    sample, boss = decided_sample
    keyword = sample.keyword
    keyword.status = Keyword.Status.CANDIDATE
    keyword.save()
    a, b, c = sample.reviewer_a, sample.reviewer_b, sample.tiebreaker
    form = {"keyword_sample": "1", "once": new_token(), "keyword": keyword.pk, "reviewer_a": a.pk,
            "reviewer_b": b.pk, "tiebreaker": c.pk, "seed": 2, "size": 1, "threshold": 0.8}
    client = client_as(boss)
    client.post(reverse("ingest:sample_create"), form)
    assert "sent already" in client.post(reverse("ingest:sample_create"), form, follow=True).content.decode()
    assert ScreeningSample.objects.count() == 2  # the fixture's and one more


# Concurrent: two threads on PostgreSQL, as a lead and an admin pressing at the same moment.

@needs_postgresql
@pytest.mark.django_db(transaction=True)
def test_two_advances_at_once_move_the_study_one_phase(study, lead, admin):
    expected = ("independent", 1)
    outcomes = at_once(lambda: advance(study, lead, confirm_missing=True, expected=expected),
                        lambda: advance(study, admin, confirm_missing=True, expected=expected))
    assert sorted(type(o).__name__ for o in outcomes) == ["NoneType", "PhaseError"], outcomes
    study.refresh_from_db()
    assert study.phase == Study.Phase.REVIEW and study.rounds.count() == 2


@needs_postgresql
@pytest.mark.django_db(transaction=True)
def test_two_decisions_at_once_make_one(study, lead, admin, annotator_a):
    issue = study.issues.first()
    label_with(annotator_a, study, issue, "C.1")
    advance(study, lead, confirm_missing=True)
    advance(study, lead, confirm_missing=True)
    study.refresh_from_db()
    pick = [LabelInput(type_id=category("C").pk, theme_id=category(code).pk) for code in ("C.1", "C.2")]
    outcomes = at_once(lambda: decide(study, lead, issue.pk, pick[0], "one", expected_version="none"),
                        lambda: decide(study, admin, issue.pk, pick[1], "two", expected_version="none"))
    assert sorted(type(o).__name__ for o in outcomes) == ["LabelError", "NoneType"]
    assert FinalLabel.objects.filter(issue=issue).count() == 1 and FinalLabel.history.filter(issue=issue).count() == 1


@needs_postgresql
@pytest.mark.django_db(transaction=True)
def test_two_codebook_changes_from_one_revision_make_one(study, lead, admin):
    study.codebook = copy_codebook(study.codebook, "own")
    study.save()
    c2 = study.codebook.categories.get(code="C.2").pk
    outcomes = at_once(lambda: changes.retire(study, lead, c2, "gone", expected_revision=1),
                        lambda: changes.rename(study, admin, c2, "Memory", "shorter", expected_revision=1))
    assert sorted(type(o).__name__ for o in outcomes) == ["CodebookError", "NoneType"]
    assert study.codebook.changes.count() == 1


@needs_postgresql
@pytest.mark.django_db(transaction=True)
def test_a_proposal_applied_twice_at_once_adds_one_category(study, lead, admin, annotator_a, annotator_b,
                                                               annotator_c):
    study.codebook = copy_codebook(study.codebook, "own")
    study.save()
    proposal = open_proposal(study, annotator_a, parent_id=category("C.1", study.codebook).pk, name="Drift",
                             definition="d", example_ids=[study.issues.first().pk])
    for person in (lead, annotator_a, annotator_b, annotator_c):
        vote(proposal, person, True)
    outcomes = at_once(lambda: changes.apply_proposal(proposal, lead, expected_revision=1),
                        lambda: changes.apply_proposal(proposal, admin, expected_revision=1))
    assert sorted(type(o).__name__ for o in outcomes) == ["CodebookError", "NoneType"]
    assert Category.objects.filter(codebook=study.codebook, name="Drift").count() == 1
    assert Proposal.objects.get().status == Proposal.Status.APPLIED


@needs_postgresql
@pytest.mark.django_db(transaction=True)
def test_a_keyword_decided_twice_at_once_is_decided_once(decided_sample):
    sample, boss = decided_sample
    other = make_user("boss2", is_staff=True)
    outcomes = at_once(lambda: decide_keyword(sample, boss, accept=True),
                        lambda: decide_keyword(sample, other, accept=False))
    assert sorted(type(o).__name__ for o in outcomes) == ["NoneType", "ScreeningError"]
    sample.refresh_from_db()
    assert sample.status in (ScreeningSample.Status.ACCEPTED, ScreeningSample.Status.REJECTED)
    assert sample.keyword.status == ("accepted" if sample.status == "accepted" else "rejected")


@needs_postgresql
@pytest.mark.django_db(transaction=True)
def test_one_token_sent_twice_at_once_makes_one_invitation(study, lead):
    from django.db import transaction

    from annotation.services.invitations import invite
    from concord import form_tokens

    token = new_token()

    def make():
        with transaction.atomic():
            form_tokens.claim(token)
            invite(study, lead, "annotator", 3, "twice")

    outcomes = at_once(make, make)
    assert sorted(type(o).__name__ for o in outcomes) == ["AlreadySent", "NoneType"]
    assert Invitation.objects.count() == 1


def test_the_error_kinds_are_the_ones_views_turn_into_messages():
    # Each refusal above reaches the person as a message, never a 500.
    for kind in (PhaseError, LabelError, CodebookError, ScreeningError):
        assert issubclass(kind, ValueError)


@needs_postgresql
@pytest.mark.django_db(transaction=True)
def test_stopping_to_label_twice_at_once_stops_once(lead, annotator_a):
    from annotation.services.labels import stop_labeling
    from tests.factories import make_study

    study = make_study(lead, [annotator_a], lead_labels_blind=True)
    outcomes = at_once(lambda: stop_labeling(lead, study, 1), lambda: stop_labeling(lead, study, 1))
    assert sorted(type(o).__name__ for o in outcomes) == ["LabelError", "NoneType"], outcomes
    assert "stopped labeling this round already" in str(next(o for o in outcomes if o))


@needs_postgresql
@pytest.mark.django_db(transaction=True)
def test_stopping_while_the_round_closes_is_refused_or_comes_first(lead, admin, annotator_a):
    from annotation.models import Queue
    from annotation.services.labels import stop_labeling
    from tests.factories import make_study

    study = make_study(lead, [annotator_a], lead_labels_blind=True)
    outcomes = at_once(lambda: stop_labeling(lead, study, 1),
                        lambda: advance(study, admin, confirm_missing=True, expected=("independent", 1)))
    study.refresh_from_db()
    assert study.phase == Study.Phase.REVIEW and outcomes[1] is None
    stopped = Queue.objects.filter(round__number=1, round__study=study, annotator=lead, stopped_at__isnull=False)
    # Either the stop came first (and was recorded in the open round) or it was told the round had closed.
    assert (outcomes[0] is None) == stopped.exists()
    assert outcomes[0] is None or "no longer in independent round 1" in str(outcomes[0])


def _labeled_for_agreement(study, lead, annotator_a, annotator_b):
    for issue in study.issues.all():
        for person, code in ((annotator_a, "C.1"), (annotator_b, "C.1"), (lead, "B.1")):
            label_with(person, study, issue, code)


@pytest.mark.django_db
def test_a_double_click_on_recompute_recomputes_once(client_as, study, lead, annotator_a, annotator_b):
    from agreement.models import AgreementSnapshot

    _labeled_for_agreement(study, lead, annotator_a, annotator_b)
    client = client_as(lead)
    client.get(reverse("agreement:study_agreement", args=[study.pk]))
    shown = {"level": "theme", "expected": AgreementSnapshot.objects.get().pk}
    url = reverse("agreement:recompute", args=[study.pk])
    client.post(url, shown)
    response = client.post(url, shown, follow=True)
    assert "recomputed since this page was shown" in response.content.decode()
    assert AgreementSnapshot.objects.count() == 2
    # A request that names no state, or a garbled one, recomputes nothing.
    for form in ({"level": "theme"}, {"level": "theme", "expected": "x" * 400}, {"expected": "9" * 40}):
        response = client.post(url, form, follow=True)
        assert response.status_code == 200 and "recomputed since" not in response.content.decode()
    assert client.post(url, {"level": "theme", "expected": "1\x00"}).status_code == 400  # refused at the door
    assert AgreementSnapshot.objects.count() == 2


@needs_postgresql
@pytest.mark.django_db(transaction=True)
def test_two_people_recomputing_at_once_recompute_once(client_as, study, lead, annotator_a, annotator_b, settings):
    from agreement.models import AgreementSnapshot
    from agreement.services import snapshot

    # No cache to mark a computation under way (Redis away): only the row lock keeps the two apart.
    settings.CACHES = {"default": {"BACKEND": "django.core.cache.backends.dummy.DummyCache"}}
    _labeled_for_agreement(study, lead, annotator_a, annotator_b)
    shown = snapshot(study.rounds.get(number=1))
    url = reverse("agreement:recompute", args=[study.pk])
    outcomes = at_once(*(lambda: client_as(lead).post(url, {"level": "theme", "expected": shown.pk})
                          for _ in range(2)))
    assert outcomes == [None, None]
    assert AgreementSnapshot.objects.count() == 2


@needs_postgresql
@pytest.mark.django_db(transaction=True)
def test_a_confused_pair_clarified_twice_at_once_is_clarified_once(study, lead, admin):
    study.codebook = copy_codebook(study.codebook, "own")
    study.save()
    first, second = (category(code, study.codebook).pk for code in ("C.1", "C.2"))
    evidence = {"pair": ["C.1", "C.2"], "at": "theme", "level": "theme", "figures": None, "examples": []}

    def clarify(who, words):
        changes.clarify_pair(study, who, first, second, "they were confused", first={"definition": words},
                             second={"definition": words}, evidence=evidence, expected_revision=1)

    outcomes = at_once(lambda: clarify(lead, "one"), lambda: clarify(admin, "two"))
    assert sorted(type(o).__name__ for o in outcomes) == ["CodebookError", "NoneType"]
    entry = study.codebook.changes.get()
    assert entry.kind == "clarify" and entry.evidence == evidence
    assert Category.objects.get(pk=first).definition == entry.after[0]["definition"]


@needs_postgresql
@pytest.mark.django_db(transaction=True)
def test_two_votes_at_once_that_together_settle_a_keyword_decide_it(db):
    """The second screener's votes on the last two items arrive together: whichever commits last sees both and
    stops the sample, so the keyword is decided, once, and no vote is lost."""
    a, b, c = make_user("scr-a"), make_user("scr-b"), make_user("scr-c")
    keyword = KeywordList.objects.create(name="k").keywords.create(term="llm", status=Keyword.Status.CANDIDATE)
    source = Source.objects.create(full_name="o/r", keyword_list=keyword.keyword_list)
    for n in range(3):
        make_issue(source, title=f"llm {n}")
    sample = draw_keyword_sample(keyword, (a, b, c), seed=1, size=3)
    items = list(sample.items.order_by("position"))
    for item in items:
        cast_vote(a, item, True)
    cast_vote(b, items[0], True)
    outcomes = at_once(lambda: cast_vote(b, items[1], True), lambda: cast_vote(b, items[2], True))
    assert outcomes == [None, None]
    sample.refresh_from_db()
    # The whole population read, every issue relevant: accepted after three verdicts.
    assert sample.status == ScreeningSample.Status.ACCEPTED and sample.sequence_stop["n"] == 3
    assert Keyword.objects.get().status == Keyword.Status.ACCEPTED
    assert sample.items.filter(votes__reviewer=b).count() == 3
