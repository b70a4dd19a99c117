"""GitHub's REST API v3 on the wire: a repository's issues (/repos/{owner}/{repo}/issues, all states, 100 a page,
oldest update first) and an issue's comments, page after page as the Link header says. What an item means is the
caller's business (ingest.fetchers)."""
from __future__ import annotations

import re
from collections.abc import Iterator
from urllib.parse import parse_qs, urlsplit

from .http import Answer, ApiClient, FetchError

_LINK = re.compile(r'<([^>]+)>;\s*rel="([^"]+)"')
PER_PAGE = 100


def parse_link_header(value: str | None) -> dict[str, str]:
    """Reference: GitHub REST "Using pagination": Link: <url>; rel="next", <url>; rel="last"."""
    return {rel: url for url, rel in _LINK.findall(value or "")}


def headers(token: str = "") -> dict[str, str]:
    found = {"Accept": "application/vnd.github+json", "X-GitHub-Api-Version": "2022-11-28",
             "User-Agent": "concord-ingest"}
    if token:
        found["Authorization"] = f"Bearer {token}"
    return found


class GitHubApi:
    def __init__(self, client: ApiClient, base_url: str, full_name: str):
        self.client, self.base, self.full_name = client, base_url.rstrip("/"), full_name

    def issue_pages(self, since=None) -> Iterator[tuple[Answer, int | None]]:
        """Each page's answer, with the issues expected in all where the last page's number says."""
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
            yield answer, total
            # The next link carries every parameter already.
            url, params = links.get("next"), None

    def comments(self, number: str) -> list:
        # Built from the configured base, never from the payload's comments_url, so no request leaves it.
        url, params = f"{self.base}/repos/{self.full_name}/issues/{number}/comments", {"per_page": PER_PAGE}
        comments = []
        while url:
            answer = self.client.get(url, params)
            if not isinstance(answer.data, list):
                raise FetchError(f"GET {answer.url} → {answer.status}, but the body is not a list of comments")
            comments.extend(answer.data)
            url, params = parse_link_header(answer.headers.get("Link")).get("next"), None
        return comments
