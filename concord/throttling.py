"""DRF's anonymous and per-user throttles, counting clients by the same address as the login lock-out, in fixed
windows.

DRF's own address rule believes a whole X-Forwarded-For header unless NUM_PROXIES is set, which would let a
stranger pick a new address per request; concord.client_ip believes only what trusted proxies appended.

DRF's throttles keep a list of every request's time per client, read, unpickled, trimmed, pickled and written
back whole on each request (up to 600 entries at the default rate, for every labeling round trip), and two
requests at once can each write back a list without the other's entry. A counter per client and window, raised
by the cache's own atomic increment (one Redis command), costs the same at any rate and loses no count. The
price of a fixed window: a client may spend one window's allowance at its end and the next one's at the start.
"""
from __future__ import annotations

from rest_framework.throttling import AnonRateThrottle, UserRateThrottle

from .client_ip import client_ip


class FixedWindow:
    """allow_request and wait for a SimpleRateThrottle, counting in windows of its duration."""

    def allow_request(self, request, view) -> bool:
        if self.rate is None:
            return True
        self.key = self.get_cache_key(request, view)
        if self.key is None:
            return True
        self.now = self.timer()
        window = int(self.now // self.duration)
        key = f"{self.key}:{window}"
        try:
            count = self.cache.incr(key)
        except ValueError:  # the window's first request (or two at once: add keeps one of them)
            self.cache.add(key, 0, self.duration + 1)
            try:
                count = self.cache.incr(key)
            except ValueError:  # the cache dropped the key at once (full, or a dummy cache): do not refuse
                return True
        # None: the cache is away (Redis down, IGNORE_EXCEPTIONS); the API stays open rather than closing.
        return count is None or count <= self.num_requests

    def wait(self) -> float | None:
        """Seconds until the window ends (DRF sends them as Retry-After)."""
        return self.duration - (self.now % self.duration)


class AnonThrottle(FixedWindow, AnonRateThrottle):
    def get_ident(self, request):
        return client_ip(request)


class UserThrottle(FixedWindow, UserRateThrottle):
    def get_ident(self, request):
        return client_ip(request)
