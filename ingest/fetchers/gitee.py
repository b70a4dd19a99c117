"""Gitee's issues as pages of records: the API on the wire is integrations.gitee's."""
from __future__ import annotations

from collections.abc import Iterator

from django.conf import settings

from integrations.gitee import GiteeApi, params

from . import Page, client_from_settings
from .pages import record_pages


class GiteeFetcher:
    def __init__(self, full_name: str, on_wait=None):
        client = client_from_settings(headers={"User-Agent": "concord-ingest"}, params=params(settings.GITEE_TOKEN),
                                      on_wait=on_wait)
        self.api = GiteeApi(client, settings.GITEE_API_URL, full_name)

    def pages(self, since=None, until=None) -> Iterator[Page]:
        return record_pages(self.api, since, until)
