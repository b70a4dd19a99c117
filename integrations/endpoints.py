"""Where a language-model rater's calls go, with which key, and what they may reach.

Two kinds of endpoint. The operator's, configured in the environment by name, carry the operator's key; a lead
picks one by its name and never sees or sets its address or key. A rater's own endpoint, an address a lead
typed, carries the rater's own key (or none) and may reach public addresses only, or the networks the operator
allows (LLM_ALLOWED_NETWORKS): checked when the rater is added and again on every connection, redirects
included."""
from __future__ import annotations

from dataclasses import dataclass

from django.conf import settings

from .guard import AddressGuard, networks


@dataclass(frozen=True)
class Endpoint:
    base_url: str
    api_key: str
    guard: AddressGuard | None  # None: the operator's own endpoint, trusted with whatever address it has
    label: str  # what pages and logs may show: the operator's endpoint's name, or the rater's own address


class NoSuchEndpoint(Exception):
    pass


def operator_endpoints() -> dict[str, dict[str, str]]:
    return settings.LLM_ENDPOINTS


def own_guard() -> AddressGuard:
    return AddressGuard(networks(settings.LLM_ALLOWED_NETWORKS))


def operator_named(base_url: str) -> str:
    """The name of the operator's endpoint at exactly `base_url`, or "" (a rater typed the operator's address:
    it is that endpoint, key and all, since the key goes nowhere else)."""
    wanted = base_url.rstrip("/")
    return next((name for name, ep in operator_endpoints().items() if ep["base_url"].rstrip("/") == wanted), "")


def endpoint_for(rater_settings: dict, own_key: str) -> Endpoint:
    """The endpoint a rater's stored settings name. Older raters stored only an address: the operator's
    endpoint at that address if there is one, otherwise an endpoint of their own."""
    name = rater_settings.get("endpoint") or operator_named(str(rater_settings.get("base_url") or ""))
    if name:
        found = operator_endpoints().get(name)
        if found is None:
            raise NoSuchEndpoint(f"the endpoint {name!r} is not configured on this server any more")
        return Endpoint(found["base_url"], found.get("api_key", ""), None, name)
    base_url = str(rater_settings.get("base_url") or "")
    if not base_url:
        raise NoSuchEndpoint("the rater names no endpoint")
    return Endpoint(base_url, own_key, own_guard(), base_url)
