"""GitHub's issues as pages of records: the API on the wire is integrations.github's."""
from __future__ import annotations

from collections.abc import Iterator

from django.conf import settings

from integrations.github import GitHubApi, headers

from . import Page, client_from_settings
from .pages import page_from_items


class GitHubFetcher:
    def __init__(self, full_name: str, on_wait=None):
        client = client_from_settings(headers=headers(settings.GITHUB_TOKEN), on_wait=on_wait)
        self.api = GitHubApi(client, settings.GITHUB_API_URL, full_name)

    def pages(self, since=None, until=None) -> Iterator[Page]:
        for answer, total in self.api.issue_pages(since):
            page = page_from_items(answer.url, answer.data, until, lambda record: self.api.comments(record.number))
            page.total = total
            yield page
            if page.reached_until:
                return
