from __future__ import annotations

from django.utils.functional import SimpleLazyObject

from .selectors import awaiting


def pending_votes(request) -> dict:
    """The header badge: proposals waiting for this user's vote. Lazy, so pages that do not show the header
    (htmx fragments) cost no query."""
    def count() -> int:
        return awaiting(request.user).count() if request.user.is_authenticated else 0

    return {"pending_votes": SimpleLazyObject(count)}
