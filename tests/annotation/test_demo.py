"""The demo users' passwords are shown once when made; `demo_passwords` gives them new ones (issue 17, item 15)."""
from __future__ import annotations

import io

import pytest
from django.contrib.auth import get_user_model
from django.core.management import CommandError, call_command

pytestmark = pytest.mark.django_db


def test_demo_passwords_gives_the_demo_users_new_ones():
    with pytest.raises(CommandError, match="no demo users"):
        call_command("demo_passwords")
    get_user_model().objects.create_user("ann1", password="old-password-1")
    out = io.StringIO()
    call_command("demo_passwords", stdout=out)
    new = out.getvalue().split("ann1", 1)[1].split()[0]
    user = get_user_model().objects.get(username="ann1")
    assert user.check_password(new) and not user.check_password("old-password-1")
