"""Django's ModelBackend, with the per-request read of the signed-in user written as plain SQL, and credentials
no account can have refused before they reach the database.

Every request of a signed-in person loads their user row; through the ORM that read costs about 0.7 ms of CPU,
as much as the rest of an API call's own queries, so it is one of concord.rows' reads. Logging in, passwords and
permissions are Django's, unchanged.
"""
from __future__ import annotations

from django.contrib.auth import get_user_model
from django.contrib.auth.backends import ModelBackend

from . import rows
from .textcheck import INT64_MAX, text_problem


class UserRowBackend(ModelBackend):
    def authenticate(self, request, username=None, password=None, **kwargs):
        # A name with a NUL or a lone surrogate cannot be stored, so no account has it, and PostgreSQL would refuse
        # the lookup with an error (a 500 through HTTP Basic, which has no form to refuse it first). It fails as a
        # wrong password does; a name longer than the column finds nobody, which the lookup already says.
        for value in (username, password, kwargs.get(get_user_model().USERNAME_FIELD)):
            if isinstance(value, str) and text_problem(value):
                return None
        return super().authenticate(request, username=username, password=password, **kwargs)

    def get_user(self, user_id):
        # The id comes from the signed session; still, nothing past bigint reaches the database.
        if not isinstance(user_id, int) or not 0 < user_id <= INT64_MAX:
            return None
        user = rows.user_row(user_id)
        return user if user is not None and self.user_can_authenticate(user) else None
