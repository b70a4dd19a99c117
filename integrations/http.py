"""One small HTTP client for platform APIs: rate limits honoured, transient failures retried with backoff.

Everything a fetcher needs from the network goes through `ApiClient.get`, so tests point the base
URL at a local server and exercise headers, pagination and errors for real.
"""
from __future__ import annotations

import logging
import time
from collections.abc import Callable
from dataclasses import dataclass

import requests

from .guard import AddressGuard, Forbidden, GuardedAdapter

log = logging.getLogger(__name__)

TRANSIENT_STATUSES = {429, 500, 502, 503, 504}
# Reference: GitHub REST "Rate limits": without Retry-After or a reset time, wait at least one minute.
DEFAULT_SECONDARY_WAIT = 60.0


class FetchError(Exception):
    """A failure that retrying will not fix; the message names the URL and status."""


class NoAnswer(FetchError):
    """Every try ended without an answer (connection refused or reset, timeout): the endpoint looks down."""


class Refused(NoAnswer):
    """The address may not be reached from here: nothing was sent, and no later request would fare better."""


@dataclass
class Answer:
    url: str
    status: int
    headers: requests.structures.CaseInsensitiveDict
    data: object


WAIT_SLICE = 60.0


class ApiClient:
    def __init__(self, *, headers: dict[str, str] | None = None, params: dict[str, str] | None = None,
                 attempts: int = 5, backoff: float = 2.0, timeout: float = 60.0, max_wait: float = 3700.0,
                 sleep: Callable[[float], None] = time.sleep, on_wait: Callable[[str], None] | None = None,
                 fallback_rate_wait: float | None = DEFAULT_SECONDARY_WAIT, guard: AddressGuard | None = None):
        self.session = requests.Session()
        self.session.headers.update(headers or {})
        if guard is not None:
            # No proxy from the environment either: the address checked must be the one connected to.
            self.session.trust_env = False
            for scheme in ("http://", "https://"):
                self.session.mount(scheme, GuardedAdapter(guard))
        self.params = params or {}
        self.attempts = attempts
        self.backoff = backoff
        self.timeout = timeout
        self.max_wait = max_wait
        self.sleep = sleep
        self.on_wait = on_wait or (lambda message: None)
        # What a bare 429 (no Retry-After, no reset time) means: a fixed wait (GitHub's advice), or, with
        # None, a transient failure retried with backoff like a 5xx.
        self.fallback_rate_wait = fallback_rate_wait

    def _wait(self, seconds: float, why: str) -> None:
        seconds = max(0.0, min(seconds, self.max_wait))
        log.info("%s; waiting %.1f s", why, seconds)
        # In slices, each reported: the report is the run's heartbeat, and an hour's wait must not look dead.
        while True:
            self.on_wait(f"{why}; waiting {seconds:.0f} s")
            step = min(seconds, WAIT_SLICE)
            self.sleep(step)
            seconds -= step
            if seconds <= 0:
                return

    def _rate_limit_wait(self, response: requests.Response) -> float | None:
        """Seconds to wait when the answer is a rate limit (primary or secondary), else None."""
        headers = response.headers
        if response.status_code not in {403, 429}:
            return None
        if headers.get("Retry-After", "").strip().isdigit():
            return float(headers["Retry-After"])
        if headers.get("X-RateLimit-Remaining") == "0" and headers.get("X-RateLimit-Reset", "").isdigit():
            return float(headers["X-RateLimit-Reset"]) - time.time() + 1
        if self.fallback_rate_wait is not None and (
            response.status_code == 429 or "rate limit" in response.text.lower()
        ):
            return self.fallback_rate_wait
        return None

    def get(self, url: str, params: dict | None = None) -> Answer:
        """GET a JSON document, waiting out rate limits and retrying transient failures."""
        return self.request("GET", url, params=params)

    def post(self, url: str, payload: dict) -> Answer:
        return self.request("POST", url, payload=payload)

    def request(self, method: str, url: str, params: dict | None = None, payload: dict | None = None) -> Answer:
        params = {**self.params, **(params or {})}
        failures = 0
        while True:
            try:
                response = self.session.request(method, url, params=params, json=payload, timeout=self.timeout)
            except Forbidden as exc:
                raise Refused(f"{method} {url}: refused, {exc}") from exc
            except (requests.ConnectionError, requests.Timeout) as exc:
                failures += 1
                if failures >= self.attempts:
                    raise NoAnswer(
                        f"{method} {url}: no answer after {failures} tries ({exc.__class__.__name__})"
                    ) from exc
                self._wait(self.backoff * 2 ** (failures - 1), f"{method} {url}: {exc.__class__.__name__}")
                continue
            wait = self._rate_limit_wait(response)
            if wait is not None:
                self._wait(wait, f"{method} {response.url}: rate limited ({response.status_code})")
                continue
            if response.status_code in TRANSIENT_STATUSES:
                failures += 1
                if failures >= self.attempts:
                    raise FetchError(f"{method} {response.url} → {response.status_code} after {failures} tries")
                self._wait(self.backoff * 2 ** (failures - 1), f"{method} {response.url} → {response.status_code}")
                continue
            if response.status_code >= 400:
                raise FetchError(f"{method} {response.url} → {response.status_code}: {_reason(response)}")
            try:
                data = response.json()
            except ValueError as exc:
                raise FetchError(
                    f"{method} {response.url} → {response.status_code}, but the body is not JSON"
                ) from exc
            self._respect_remaining(response)
            return Answer(url=response.url, status=response.status_code, headers=response.headers, data=data)

    def _respect_remaining(self, response: requests.Response) -> None:
        # Never hammer: with the quota spent, wait for the reset before the next request is even sent.
        headers = response.headers
        if headers.get("X-RateLimit-Remaining") == "0" and headers.get("X-RateLimit-Reset", "").isdigit():
            self._wait(float(headers["X-RateLimit-Reset"]) - time.time() + 1, "rate limit quota used up")


def _reason(response: requests.Response) -> str:
    try:
        body = response.json()
    except ValueError:
        body = None
    message = body.get("message") if isinstance(body, dict) else None
    hints = {401: "bad or expired token", 404: "no such repository, or the token cannot see it"}
    parts = [p for p in (message, hints.get(response.status_code)) if p]
    return " — ".join(parts) or response.reason or "error"
