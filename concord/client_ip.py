"""Which address a request comes from, for the login lock-out (django-axes) and the API throttles (DRF).

Behind N trusted proxies, each appends the address it saw to the forwarding header, so the N-th entry from the
right is the last one written by a proxy we trust; entries to its left were written by the client and may be
anything. django-ipware was tried and left out: with a header longer than it expects it answers no address at
all, which would put every client that forges an extra entry into one shared lock-out bucket.
"""
from __future__ import annotations

import ipaddress

from django.conf import settings


def client_ip(request) -> str:
    remote = request.META.get("REMOTE_ADDR", "")
    header, count = settings.CLIENT_IP_HEADER, settings.TRUSTED_PROXY_COUNT
    if not header or count < 1:
        return remote
    entries = [e.strip() for e in request.META.get(header, "").split(",") if e.strip()]
    if len(entries) < count:
        return remote
    candidate = entries[-count]
    try:
        return str(ipaddress.ip_address(candidate))
    except ValueError:
        return remote
