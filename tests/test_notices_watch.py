"""Notices no one's click sends: a queue left idle for days (its annotator and the leads), a long job that
ended, or one whose worker died (whoever started it). Each is told once."""
from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone, translation

from accounts import notices
from accounts.models import Notice
from annotation.models import Queue, Round
from concord import jobs
from ingest.models import IngestRun
from reminders.idle import idle_queues, tell_idle
from tests.factories import label_with, make_issue, make_source, make_study, make_user

pytestmark = pytest.mark.django_db


def _texts(user) -> list[str]:
    return [notices.text(n) for n in Notice.objects.filter(user=user, read_at__isnull=True)]


def test_a_queue_idle_for_days_tells_its_annotator_and_the_leads_once(settings):
    settings.QUEUE_IDLE_DAYS = 3
    lead, ann, bob = make_user("lead"), make_user("ann"), make_user("bob")
    issues = [make_issue() for _ in range(3)]
    study = make_study(lead, [ann, bob], issues=issues, name="Idle study")
    opened = timezone.now() - timedelta(days=10)
    Round.objects.filter(study=study).update(opened_at=opened)
    # ann labeled two days ago: her queue moves. bob never labeled: his stands since the round opened. The
    # lead labels too, and finished.
    label_with(ann, study, issues[0], "A.1")
    for issue in issues:
        label_with(lead, study, issue, "B.1")
    now = timezone.now() + timedelta(days=2, hours=12)
    assert {q.annotator.username for q in idle_queues(now)} == {"bob"}
    assert tell_idle(now) == 1
    since = f"{opened:%Y-%m-%d}"
    assert _texts(bob) == [f"Nothing has been labeled from your queue in Idle study since {since}; reports left: 3."]
    assert _texts(lead) == [f"bob has labeled nothing in Idle study since {since}; reports left in their queue: 3."]
    with translation.override("zh-hans"):
        assert "Idle study" in _texts(bob)[0] and "3" in _texts(bob)[0] and "queue" not in _texts(bob)[0]
    assert _texts(ann) == []
    # Read, and looked at again hours later: the same idle spell is not told twice.
    notices.read_up_to(bob, Notice.objects.latest("pk").pk)
    assert tell_idle(now + timedelta(hours=6)) == 1 and _texts(bob) == []
    # He labels, then stops again for days: a new spell, told again; ann's queue has stood still too by then.
    label_with(bob, study, issues[1], "A.1")
    later = timezone.now() + timedelta(days=5)
    assert tell_idle(later) == 2
    assert len(_texts(bob)) == 1 and "reports left: 2" in _texts(bob)[0]
    assert len(_texts(lead)) == 3  # bob's first spell (unread), his second, ann's
    # A closed round, a stopped queue or an empty one is never idle.
    Queue.objects.filter(annotator=ann).update(stopped_at=timezone.now())
    Round.objects.filter(study=study).update(closed_at=timezone.now())
    assert idle_queues(later) == []


def test_the_idle_kind_switched_off_reaches_no_one():
    lead, ann = make_user("lead"), make_user("ann")
    study = make_study(lead, [ann])
    Round.objects.filter(study=study).update(opened_at=timezone.now() - timedelta(days=10))
    notices.switch(ann, {"idle"})
    notices.switch(lead, {"stuck"})
    assert tell_idle() == 2  # both queues stand, the lead's own too
    assert list(Notice.objects.values_list("user__username", "kind")) == [("lead", "idle")]


def _run(owner, seconds: float) -> IngestRun:
    now = timezone.now()
    return IngestRun.objects.create(source=make_source("mindspore/mindspore"), kind="api", created_by=owner,
                                    status="running", started_at=now - timedelta(seconds=seconds),
                                    worker="ingest@host")


def test_a_long_job_tells_whoever_started_it_that_it_ended(settings):
    settings.JOB_NOTICE_SECONDS = 60
    admin = make_user("admin")
    jobs.finish(_run(admin, 5), "succeeded", "done")  # ended while they watched: nothing
    jobs.finish(_run(admin, 5), "failed", "not a JSON Lines file")  # refused at once, on their screen
    assert _texts(admin) == []
    jobs.finish(_run(admin, 90), "failed", "the token was refused")
    jobs.finish(_run(admin, 600), "succeeded", "done")
    assert sorted(_texts(admin)) == ["The import “mindspore/mindspore” failed; its page says why.",
                                     "The import “mindspore/mindspore” finished."]
    with translation.override("zh-hans"):
        assert all("mindspore/mindspore" in t and "import" not in t for t in _texts(admin))
    # A run whose worker died is marked failed by the watch, and its owner hears that too, once.
    Notice.objects.all().delete()
    stale = _run(admin, 900)
    IngestRun.objects.filter(pk=stale.pk).update(heartbeat_at=timezone.now() - timedelta(hours=1))
    assert jobs.interrupt_stale(IngestRun, lambda job: ("Start it again.", {})) == 1
    assert jobs.interrupt_stale(IngestRun, lambda job: ("Start it again.", {})) == 0
    assert _texts(admin) == ["The import “mindspore/mindspore” failed; its page says why."]
    # Nobody to tell: a run started from the command line.
    jobs.finish(_run(None, 600), "failed", "no token")
    assert Notice.objects.count() == 1
