"""Gitee's OpenAPI v5 on the wire: a repository's issues (/repos/{owner}/{repo}/issues, all states, 100 a page by
page number, oldest update first) and an issue's comments. What an item means is the caller's business
(ingest.fetchers).

Reference: Gitee OpenAPI v5 ("获取某个仓库的所有Issues"): page/per_page parameters, total_count and
total_page response headers, the token as the access_token parameter; numbers are strings like I8SLI3.
"""
from __future__ import annotations

from collections.abc import Iterator

from .http import Answer, ApiClient, FetchError

PER_PAGE = 100


def header_int(headers, name: str) -> int | None:
    value = headers.get(name, "")
    return int(value) if value.isdigit() else None


def params(token: str = "") -> dict[str, str]:
    return {"access_token": token} if token else {}


class GiteeApi:
    def __init__(self, client: ApiClient, base_url: str, full_name: str):
        self.client, self.base, self.full_name = client, base_url.rstrip("/"), full_name

    def _numbered_pages(self, url: str, params: dict) -> Iterator[Answer]:
        """Page 1, 2, … as total_page (or a short page) says."""
        number = 1
        while True:
            answer = self.client.get(url, {**params, "page": number, "per_page": PER_PAGE})
            last = header_int(answer.headers, "total_page")
            short = not isinstance(answer.data, list) or len(answer.data) < PER_PAGE
            yield answer
            if (number >= last) if last is not None else short:
                return
            number += 1

    def issue_pages(self, since=None) -> Iterator[tuple[Answer, int | None]]:
        """Each page's answer, with the issues expected in all where the total_count header says."""
        asked = {"state": "all", "sort": "updated", "direction": "asc"}
        if since:
            asked["since"] = since.isoformat()
        for answer in self._numbered_pages(f"{self.base}/repos/{self.full_name}/issues", asked):
            yield answer, header_int(answer.headers, "total_count")

    def comments(self, number: str) -> list:
        comments = []
        for answer in self._numbered_pages(f"{self.base}/repos/{self.full_name}/issues/{number}/comments", {}):
            if not isinstance(answer.data, list):
                raise FetchError(f"GET {answer.url} → {answer.status}, but the body is not a list of comments")
            comments.extend(answer.data)
        return comments
