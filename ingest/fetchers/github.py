"""GitHub REST v3: /repos/{owner}/{repo}/issues, all states, 100 a page, oldest update first."""
from __future__ import annotations

import re
from collections.abc import Iterator
from urllib.parse import parse_qs, urlsplit

from django.conf import settings

from . import FetchError, Page, client_from_settings
from .pages import page_from_items

_LINK = re.compile(r'<([^>]+)>;\s*rel="([^"]+)"')
PER_PAGE = 100


def parse_link_header(value: str | None) -> dict[str, str]:
    """Reference: GitHub REST "Using pagination": Link: <url>; rel="next", <url>; rel="last"."""
    return {rel: url for url, rel in _LINK.findall(value or "")}


class GitHubFetcher:
    def __init__(self, full_name: str, on_wait=None):
        headers = {"Accept": "application/vnd.github+json", "X-GitHub-Api-Version": "2022-11-28",
                   "User-Agent": "concord-ingest"}
        if settings.GITHUB_TOKEN:
            headers["Authorization"] = f"Bearer {settings.GITHUB_TOKEN}"
        self.client = client_from_settings(headers=headers, on_wait=on_wait)
        self.base = settings.GITHUB_API_URL.rstrip("/")
        self.full_name = full_name

    def pages(self, since=None, until=None) -> Iterator[Page]:
        params = {"state": "all", "per_page": PER_PAGE, "sort": "updated", "direction": "asc"}
        if since:
            params["since"] = since.isoformat()
        url, total = f"{self.base}/repos/{self.full_name}/issues", None
        while url:
            answer = self.client.get(url, params)
            links = parse_link_header(answer.headers.get("Link"))
            if total is None and "last" in links:
                last = parse_qs(urlsplit(links["last"]).query).get("page", ["1"])[0]
                total = int(last) * PER_PAGE if last.isdigit() else None
            page = page_from_items(answer.url, answer.data, until, self._comments)
            page.total = total
            yield page
            if page.reached_until:
                return
            # The next link carries every parameter already.
            url, params = links.get("next"), None

    def _comments(self, record) -> list:
        # Built from the configured base, never from the payload's comments_url, so no request leaves it.
        url, params = f"{self.base}/repos/{self.full_name}/issues/{record.number}/comments", {"per_page": PER_PAGE}
        comments = []
        while url:
            answer = self.client.get(url, params)
            if not isinstance(answer.data, list):
                raise FetchError(f"GET {answer.url} → {answer.status}, but the body is not a list of comments")
            comments.extend(answer.data)
            url, params = parse_link_header(answer.headers.get("Link")).get("next"), None
        return comments
