"""Gitee v5: /repos/{owner}/{repo}/issues, all states, 100 a page by page number, oldest update first.

Reference: Gitee OpenAPI v5 ("获取某个仓库的所有Issues"): page/per_page parameters, total_count and
total_page response headers, the token as the access_token parameter; numbers are strings like I8SLI3.
"""
from __future__ import annotations

from collections.abc import Iterator

from django.conf import settings

from . import FetchError, Page, client_from_settings
from .pages import page_from_items

PER_PAGE = 100


def _header_int(headers, name: str) -> int | None:
    value = headers.get(name, "")
    return int(value) if value.isdigit() else None


class GiteeFetcher:
    def __init__(self, full_name: str, on_wait=None):
        params = {"access_token": settings.GITEE_TOKEN} if settings.GITEE_TOKEN else {}
        self.client = client_from_settings(headers={"User-Agent": "concord-ingest"}, params=params, on_wait=on_wait)
        self.base = settings.GITEE_API_URL.rstrip("/")
        self.full_name = full_name

    def _numbered_pages(self, url: str, params: dict):
        """(answer, is_last) for page 1, 2, … as total_page (or a short page) says."""
        number = 1
        while True:
            answer = self.client.get(url, {**params, "page": number, "per_page": PER_PAGE})
            last = _header_int(answer.headers, "total_page")
            short = not isinstance(answer.data, list) or len(answer.data) < PER_PAGE
            is_last = number >= last if last is not None else short
            yield answer, is_last
            if is_last:
                return
            number += 1

    def pages(self, since=None, until=None) -> Iterator[Page]:
        params = {"state": "all", "sort": "updated", "direction": "asc"}
        if since:
            params["since"] = since.isoformat()
        for answer, is_last in self._numbered_pages(f"{self.base}/repos/{self.full_name}/issues", params):
            page = page_from_items(answer.url, answer.data, until, self._comments)
            page.total = _header_int(answer.headers, "total_count")
            yield page
            if page.reached_until or is_last:
                return

    def _comments(self, record) -> list:
        comments = []
        url = f"{self.base}/repos/{self.full_name}/issues/{record.number}/comments"
        for answer, _is_last in self._numbered_pages(url, {}):
            if not isinstance(answer.data, list):
                raise FetchError(f"GET {answer.url} → {answer.status}, but the body is not a list of comments")
            comments.extend(answer.data)
        return comments
