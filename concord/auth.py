"""Django's ModelBackend, with the per-request read of the signed-in user written as plain SQL.

Every request of a signed-in person loads their user row; through the ORM that read costs about 0.7 ms of CPU,
as much as the rest of an API call's own queries (see concord.rows). Logging in, passwords and permissions
are Django's, unchanged.
"""
from __future__ import annotations

from functools import cache

from django.contrib.auth import get_user_model
from django.contrib.auth.backends import ModelBackend

from . import rows
from .textcheck import INT64_MAX


@cache
def _user_sql() -> str:
    User = get_user_model()
    return f"SELECT {rows.columns(User, 'u')} FROM {User._meta.db_table} u WHERE u.id = %s"


class UserRowBackend(ModelBackend):
    def get_user(self, user_id):
        # The id comes from the signed session; still, nothing past bigint reaches the database.
        if not isinstance(user_id, int) or not 0 < user_id <= INT64_MAX:
            return None
        row = rows.fetch_one(_user_sql(), [user_id])
        user = rows.instance(get_user_model(), row) if row else None
        return user if user is not None and self.user_can_authenticate(user) else None
