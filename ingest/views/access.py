from __future__ import annotations

from django.contrib.auth.decorators import user_passes_test
from django.core.exceptions import PermissionDenied


def _staff(user) -> bool:
    if user.is_authenticated and not user.is_staff:
        raise PermissionDenied  # logged in but not an admin: 403, not a login loop
    return user.is_authenticated


staff_required = user_passes_test(_staff)
