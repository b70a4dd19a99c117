"""Django's ModelBackend, with the per-request read of the signed-in user written as plain SQL.

Every request of a signed-in person loads their user row; through the ORM that read costs about 0.7 ms of CPU,
as much as the rest of an API call's own queries, so it is one of concord.rows' reads. Logging in, passwords and
permissions are Django's, unchanged.
"""
from __future__ import annotations

from django.contrib.auth.backends import ModelBackend

from . import rows
from .textcheck import INT64_MAX


class UserRowBackend(ModelBackend):
    def get_user(self, user_id):
        # The id comes from the signed session; still, nothing past bigint reaches the database.
        if not isinstance(user_id, int) or not 0 < user_id <= INT64_MAX:
            return None
        user = rows.user_row(user_id)
        return user if user is not None and self.user_can_authenticate(user) else None
