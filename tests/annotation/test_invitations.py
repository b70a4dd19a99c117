"""Volunteers join through one-time, expiring links and choose their own password."""
from __future__ import annotations

import re
from datetime import timedelta

import pytest
from django.contrib.auth import get_user_model
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from annotation.models import Invitation, Membership, Queue
from concord.form_tokens import new_token

pytestmark = pytest.mark.django_db


def _link(client_as, lead, study, role="annotator", note="Dana"):
    response = client_as(lead).post(reverse("annotation:invitation_create", args=[study.pk]),
                                    {"role": role, "days": 14, "note": note, "once": new_token()})
    assert response.status_code == 200
    return re.search(r'data-testid="invitation-link">([^<]+)<', response.content.decode()).group(1)


def _join(link, username="dana", password="a-long-passphrase-9"):
    client = Client()
    response = client.post(link, {"username": username, "password1": password, "password2": password})
    return client, response


def test_a_volunteer_joins_with_the_link_and_gets_a_queue(client_as, study, lead):
    link = _link(client_as, lead, study)
    assert "/join/" in link
    client, response = _join(link)
    assert response.status_code == 302
    dana = get_user_model().objects.get(username="dana")
    assert Membership.objects.get(study=study, user=dana).role == "annotator"
    assert Queue.objects.get(annotator=dana).total == study.issues.count()
    # Logged in as the new account, with the password they chose.
    assert "Report" in client.get(reverse("annotation:queue", args=[study.pk])).content.decode()
    from django.http import HttpRequest

    # The login rate limit needs the request it counts by.
    assert Client().login(request=HttpRequest(), username="dana", password="a-long-passphrase-9")


def test_only_a_hash_of_the_token_is_stored(client_as, study, lead):
    link = _link(client_as, lead, study)
    token = link.rstrip("/").rsplit("/", 1)[1]
    assert not Invitation.objects.filter(token_hash__contains=token).exists()


def test_a_link_works_once(client_as, study, lead):
    link = _link(client_as, lead, study)
    _join(link)
    _, response = _join(link, username="eve")
    assert response.status_code == 410 and "used already" in response.content.decode()
    assert not get_user_model().objects.filter(username="eve").exists()


@pytest.mark.parametrize("spoil, message", [
    ({"expires_at": timezone.now() - timedelta(minutes=1)}, "expired"),
    ({"revoked_at": timezone.now()}, "withdrawn"),
])
def test_expired_and_withdrawn_links_are_refused(client_as, study, lead, spoil, message):
    link = _link(client_as, lead, study)
    Invitation.objects.update(**spoil)
    response = Client().get(link)
    assert response.status_code == 410 and message in response.content.decode()


def test_an_unknown_link_is_refused(client):
    response = client.get(reverse("join", args=["not-a-token"]))
    assert response.status_code == 410 and "not valid" in response.content.decode()


def test_a_bad_password_keeps_the_link_unused(client_as, study, lead):
    link = _link(client_as, lead, study)
    _, response = _join(link, password="123")
    assert response.status_code == 400
    assert Invitation.objects.get().accepted_at is None and not get_user_model().objects.filter(username="dana")


def test_someone_logged_in_joins_with_their_account(client_as, study, lead, outsider):
    link = _link(client_as, lead, study, role="lead")
    client = client_as(outsider)
    assert "Join as mallory" in client.get(link).content.decode()
    client.post(link)
    assert Membership.objects.get(study=study, user=outsider).role == "lead"


def test_annotators_cannot_invite_or_see_invitations(client_as, study, annotator_a):
    client = client_as(annotator_a)
    assert client.get(reverse("annotation:members", args=[study.pk])).status_code == 403
    response = client.post(reverse("annotation:invitation_create", args=[study.pk]), {"role": "lead", "days": 3,
                                                                                        "once": new_token()})
    assert response.status_code == 403 and not Invitation.objects.exists()


def test_the_lead_withdraws_an_open_invitation(client_as, study, lead):
    link = _link(client_as, lead, study)
    invitation = Invitation.objects.get()
    client_as(lead).post(reverse("annotation:invitation_revoke", args=[study.pk, invitation.pk]))
    assert Client().get(link).status_code == 410


def test_the_lead_adds_an_existing_user_by_name(client_as, study, lead, outsider):
    client = client_as(lead)
    client.post(reverse("annotation:members", args=[study.pk]), {"username": "mallory", "role": "annotator"})
    assert Membership.objects.filter(study=study, user=outsider).exists()
    response = client.post(reverse("annotation:members", args=[study.pk]), {"username": "nobody", "role": "annotator"})
    assert response.status_code == 400 and "No active user named" in response.content.decode()


def test_a_member_opening_a_link_does_not_use_it_up(client_as, study, lead, annotator_a):
    link = _link(client_as, lead, study)
    response = client_as(annotator_a).post(link)
    assert response.status_code == 302 and Invitation.objects.get().accepted_at is None


def test_the_pilot_form_does_not_redirect_off_site(client_as, lead):
    from annotation.services.studies import create_study
    from tests.factories import codebook, make_issue

    study = create_study(name="Off-site", codebook=codebook(), issues=[make_issue()], lead=lead, with_pilot=True)
    for target in ("https://evil.example/", "//evil.example/", "/\\\\evil.example/"):
        response = client_as(lead).post(reverse("codebook:category_add", args=[study.pk]),
                                        {"parent": 1, "name": "x", "next": target})
        assert response.status_code == 302 and "evil" not in response.url
