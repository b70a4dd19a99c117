from __future__ import annotations

from django.utils.functional import SimpleLazyObject

from .notices import unread


def unread_notices(request) -> dict:
    """The header's count of unread notices. Lazy, so pages that do not show the header (htmx fragments) cost
    no query."""
    def count() -> int:
        return unread(request.user) if request.user.is_authenticated else 0

    return {"unread_notices": SimpleLazyObject(count)}
