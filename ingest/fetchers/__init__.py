"""Platform fetchers. Each yields pages of issue records, oldest update first, so a run can resume.

`fetcher_for(source)` picks the fetcher; base URLs and tokens come from settings (GITHUB_API_URL,
GITEE_API_URL, GITHUB_TOKEN, GITEE_TOKEN).
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from django.conf import settings

from integrations.http import ApiClient, FetchError

from ..importers import IssueRecord

__all__ = ["FetchError", "Page", "fetcher_for"]


@dataclass
class Page:
    records: list[IssueRecord | None]  # None for a pull request
    high_water: object = None  # newest updated_at on this page: where the next run starts
    total: int | None = None  # issues expected in all, where the platform says
    errors: list[str] = field(default_factory=list)  # comment pages that could not be fetched
    reached_until: bool = False  # an issue updated after the run's `until` was seen: stop here


def client_from_settings(headers=None, params=None, on_wait: Callable[[str], None] | None = None) -> ApiClient:
    return ApiClient(
        headers=headers, params=params, attempts=settings.INGEST_HTTP_ATTEMPTS,
        backoff=settings.INGEST_HTTP_BACKOFF_SECONDS, timeout=settings.INGEST_HTTP_TIMEOUT_SECONDS,
        max_wait=settings.INGEST_MAX_WAIT_SECONDS, on_wait=on_wait,
    )


def fetcher_for(source, on_wait: Callable[[str], None] | None = None):
    from .gitee import GiteeFetcher  # cycle: each fetcher imports this package's FetchError and client
    from .github import GitHubFetcher  # cycle: as above

    fetchers = {"github": GitHubFetcher, "gitee": GiteeFetcher}
    if source.platform not in fetchers:
        raise FetchError(f"{source}: a {source.get_platform_display()} source has no API to fetch from")
    return fetchers[source.platform](source.full_name, on_wait=on_wait)
