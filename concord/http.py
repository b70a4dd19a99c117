from __future__ import annotations

from django.http import HttpRequest
from django_htmx.middleware import HtmxDetails


class HtmxHttpRequest(HttpRequest):
    """An HttpRequest as HtmxMiddleware leaves it, for type hints in views."""

    htmx: HtmxDetails
