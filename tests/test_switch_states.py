"""The on/off switches (a study's single sign-on, a webhook) and sending a dead message again: each request names
the state its page showed, so a hostile value changes nothing and two requests at once change it once."""
from __future__ import annotations

import pytest
from django.db import connection
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from annotation.models import Study
from concord.models import AuditEntry
from tests.concurrency import at_once
from tests.factories import make_study, make_user
from webhooks import services as webhooks
from webhooks.models import Webhook, WebhookDelivery

HOSTILE = [None, "", "ON", "on ", "o\x00n", "true", "1", "x" * 100_000, "开"]


def _world():
    """An admin, a lead, their study with a webhook that is on, and a message to it that is dead."""
    admin = make_user("admin", is_staff=True, is_superuser=True)
    lead = make_user("lead")
    study = make_study(lead, [], n_issues=1)
    hook = Webhook.objects.create(study=study, url="https://hooks.example.org/c", secret="whsec_QUJD", created_by=lead)
    dead = WebhookDelivery.objects.create(webhook=hook, message_id="msg_1", event="round.closed", body="{}",
                                          attempts=8, dead_at=timezone.now(), next_attempt_at=None)
    return admin, lead, study, hook, dead


@pytest.fixture
def world(db):
    return _world()


def _client(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


def _post(client, url, value):
    data = {} if value is None else {"expected": value}
    return client.post(url, data)


@pytest.mark.parametrize("value", HOSTILE, ids=repr)
def test_a_hostile_expected_state_changes_no_switch(world, value):
    admin, lead, study, hook, _ = world
    # Signing the two clients in is audited; nothing else may be.
    audit_before = AuditEntry.objects.exclude(action="sign-in").count()
    sso = _post(_client(admin), reverse("annotation:study_sso", args=[study.pk]), value)
    switch = _post(_client(lead), reverse("webhooks:switch", args=[study.pk, hook.pk]), value)
    # Refused with a message on the page, or (a NUL) by the guard on every form as a 400.
    assert {sso.status_code, switch.status_code} <= {302, 400}
    assert not Study.objects.get(pk=study.pk).sso_required
    assert Webhook.objects.get(pk=hook.pk).active
    assert AuditEntry.objects.exclude(action="sign-in").count() == audit_before


def test_the_refusal_says_what_the_form_left_out(world):
    admin, lead, study, hook, _ = world
    page = _client(admin).post(reverse("annotation:study_sso", args=[study.pk]), {"expected": "maybe"}, follow=True)
    assert "did not say which setting it showed" in page.content.decode()
    page = _client(lead).post(reverse("webhooks:switch", args=[study.pk, hook.pk]), {"expected": "maybe"},
                              follow=True)
    assert "did not say whether the webhook was on or off" in page.content.decode()


@pytest.mark.django_db(transaction=True)
@pytest.mark.skipif(connection.vendor != "postgresql", reason="two writers at once need PostgreSQL")
def test_two_clicks_at_once_change_each_switch_once():
    admin, lead, study, hook, dead = _world()
    sso = reverse("annotation:study_sso", args=[study.pk])
    switch = reverse("webhooks:switch", args=[study.pk, hook.pk])
    again = reverse("webhooks:again", args=[study.pk, dead.pk])
    revived = []
    # Two of each, released together: both pages showed the webhook "on", the message dead. (Single sign-on comes
    # after: switched on, it would refuse the lead's password session.)
    outcomes = at_once(*[lambda: _client(lead).post(switch, {"expected": "on"}) for _ in range(2)],
                       *[lambda: revived.append(webhooks.send_again(dead)) for _ in range(2)])
    assert outcomes == [None] * 4 and sorted(revived) == [False, True]
    assert not Webhook.objects.get(pk=hook.pk).active
    delivery = WebhookDelivery.objects.get(pk=dead.pk)
    assert delivery.dead_at is None and delivery.attempts == 0
    assert _client(lead).post(again).status_code == 302  # the page's own button: not dead, nothing changes
    # Both pages showed single sign-on "off".
    assert at_once(*[lambda: _client(admin).post(sso, {"expected": "off"}) for _ in range(2)]) == [None] * 2
    assert Study.objects.get(pk=study.pk).sso_required
    assert AuditEntry.objects.filter(action="single sign-on required").count() == 1
    # Switched back by its own page: on again, and single sign-on off, each once (by the admin, whom single
    # sign-on does not hold back).
    _client(admin).post(switch, {"expected": "off"})
    _client(admin).post(sso, {"expected": "on"})
    assert Webhook.objects.get(pk=hook.pk).active and not Study.objects.get(pk=study.pk).sso_required
    assert AuditEntry.objects.filter(action="single sign-on no longer required").count() == 1
