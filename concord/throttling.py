"""DRF's anonymous and per-user throttles, counting clients by the same address as the login lock-out.

DRF's own address rule believes a whole X-Forwarded-For header unless NUM_PROXIES is set, which would let a
stranger pick a new address per request; concord.client_ip believes only what trusted proxies appended.
"""
from __future__ import annotations

from rest_framework.throttling import AnonRateThrottle, UserRateThrottle

from .client_ip import client_ip


class AnonThrottle(AnonRateThrottle):
    def get_ident(self, request):
        return client_ip(request)


class UserThrottle(UserRateThrottle):
    def get_ident(self, request):
        return client_ip(request)
