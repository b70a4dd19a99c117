"""Notices by e-mail, against a real SMTP server on 127.0.0.1: one digest a day at most, in each person's
language, with links to the site; nothing for someone who read it first, switched digests off or has no address;
a server that is down loses nothing."""
from __future__ import annotations

import socket
from datetime import timedelta
from email import message_from_bytes, policy

import pytest
from aiosmtpd.controller import Controller
from django.utils import timezone

from accounts import digests, notices
from accounts.models import Notice, Preferences
from codebook.services.proposals import open_proposal
from tests.factories import category, make_issue, make_study, make_user

pytestmark = pytest.mark.django_db


class Inbox:
    def __init__(self):
        self.mails = []

    async def handle_DATA(self, server, session, envelope):
        self.mails.append((envelope.rcpt_tos, message_from_bytes(envelope.content, policy=policy.default)))
        return "250 OK"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture
def smtp(settings):
    inbox, port = Inbox(), _free_port()
    controller = Controller(inbox, hostname="127.0.0.1", port=port)
    controller.start()
    settings.EMAIL_BACKEND = "django.core.mail.backends.smtp.EmailBackend"
    settings.EMAIL_HOST, settings.EMAIL_PORT, settings.EMAIL_TIMEOUT = "127.0.0.1", port, 5
    settings.SITE_URL = "https://concord.example.org"
    yield inbox, controller
    controller.stop()


@pytest.fixture
def waiting():
    """A proposal awaiting the votes of li (reads Chinese), bob (English), carl (no address) and dan (no
    digests)."""
    lead = make_user("lead", email="lead@example.org")
    li, bob = make_user("li", email="li@example.cn"), make_user("bob", email="bob@example.org")
    carl, dan = make_user("carl"), make_user("dan", email="dan@example.org")
    Preferences.objects.create(user=li, language="zh-hans")
    Preferences.objects.create(user=dan, email_digest=False)
    issue = make_issue()
    study = make_study(lead, [li, bob, carl, dan], issues=[issue], name="大模型问题研究")
    open_proposal(study, lead, parent_id=category("C", study.codebook).pk, name="Drift", definition="d",
                  example_ids=[issue.pk])
    return study, li, bob


def _text(mail) -> str:
    return mail.get_body(("plain",)).get_content()


def test_each_person_gets_one_digest_in_their_language(smtp, waiting):
    inbox, _ = smtp
    study, li, bob = waiting
    assert digests.send_digests() == 2
    mails = {to[0]: mail for to, mail in inbox.mails}
    assert set(mails) == {"li@example.cn", "bob@example.org"}
    assert mails["li@example.cn"]["Subject"] == "Concord：有 1 件事等待你处理"
    body = _text(mails["li@example.cn"])
    assert "“大模型问题研究”中 C Bug 下的“Drift”等待你投票，还剩 14 天。" in body
    assert f"https://concord.example.org/studies/{study.pk}/proposals/" in body
    assert "https://concord.example.org/notices/" in body
    assert mails["bob@example.org"]["Subject"] == "Concord: 1 thing waits on you"
    assert "awaits your vote" in _text(mails["bob@example.org"])
    # Sent once: a second run the same day sends nothing, and neither does a notice that came since.
    assert digests.send_digests() == 0
    notices.notify([bob], "ties", "ties:x", {"study": "S"})
    assert digests.send_digests() == 0 and len(inbox.mails) == 2
    # A day later the new notice goes, alone.
    assert digests.send_digest(bob.pk, now=timezone.now() + timedelta(hours=25)) == 1
    assert "still tied" in _text(inbox.mails[-1][1]) and "awaits your vote" not in _text(inbox.mails[-1][1])


def test_a_notice_read_on_the_site_is_not_mailed(smtp, waiting):
    inbox, _ = smtp
    study, li, bob = waiting
    Notice.objects.filter(user=bob).update(read_at=timezone.now())
    assert digests.send_digests() == 1 and inbox.mails[0][0] == ["li@example.cn"]


def test_a_mail_server_that_is_down_loses_nothing(smtp, waiting, settings):
    inbox, _ = smtp
    study, li, bob = waiting
    up = settings.EMAIL_PORT
    settings.EMAIL_PORT = _free_port()  # nothing listens there
    assert digests.send_digests() == 0
    assert Notice.objects.filter(emailed_at__isnull=False).count() == 0
    assert not Preferences.objects.filter(last_digest_at__isnull=False).exists()
    settings.EMAIL_PORT = up
    assert digests.send_digests() == 2 and len(inbox.mails) == 2
