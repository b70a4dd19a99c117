"""GitHub's issues as pages of records: the API on the wire is integrations.github's."""
from __future__ import annotations

from collections.abc import Iterator

from django.conf import settings

from integrations.github import GitHubApi, headers

from . import Page, client_from_settings
from .pages import record_pages


class GitHubFetcher:
    def __init__(self, full_name: str, on_wait=None):
        client = client_from_settings(headers=headers(settings.GITHUB_TOKEN), on_wait=on_wait)
        self.api = GitHubApi(client, settings.GITHUB_API_URL, full_name)

    def pages(self, since=None, until=None) -> Iterator[Page]:
        return record_pages(self.api, since, until)
