"""The username a failed login is counted under (django-axes).

Django's login form does not limit the username's length before authenticating, so a 300-character name, or
one with a NUL, reached axes' attempt table (255 characters, no NUL on PostgreSQL) and ended in a 500. The
count is kept under the name cut to what a username can be, NULs made visible and lone surrogates (text that is
not Unicode, which PostgreSQL refuses too) replaced.
"""
from __future__ import annotations

from django.contrib.auth import get_user_model


def attempted_username(request, credentials: dict | None) -> str:
    name = (credentials or {}).get("username")
    if name is None and request is not None:
        name = request.POST.get("username", "")
    limit = get_user_model()._meta.get_field("username").max_length
    name = str(name or "").replace("\x00", "\ufffd").encode("utf-8", "replace").decode("utf-8")
    return name[:limit]
