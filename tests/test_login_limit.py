"""Guessing passwords: repeated failures for one username from one address lock that pair out for a while."""
from __future__ import annotations

import pytest
from django.test import Client
from django.urls import reverse

from tests.factories import make_user

pytestmark = pytest.mark.django_db


def _login(client: Client, password: str):
    return client.post(reverse("login"), {"username": "target", "password": password})


def test_ten_wrong_passwords_lock_the_account_from_that_address(settings):
    make_user("target")
    client = Client()
    for _ in range(settings.AXES_FAILURE_LIMIT - 1):
        assert _login(client, "wrong").status_code == 200  # the form again, with its message
    locked = _login(client, "wrong")
    assert locked.status_code == 429 and "Too many failed logins" in locked.content.decode()
    # Even the right password is refused while the lockout lasts.
    assert _login(client, "pw-target").status_code == 429


def test_a_success_before_the_limit_resets_the_count(settings):
    make_user("target")
    client = Client()
    for _ in range(settings.AXES_FAILURE_LIMIT - 1):
        _login(client, "wrong")
    assert _login(client, "pw-target").status_code == 302
    assert _login(Client(), "wrong").status_code == 200
