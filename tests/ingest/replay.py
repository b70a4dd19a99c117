"""Replays recorded API answers from a real HTTP server on 127.0.0.1 (pytest-httpserver)."""
from __future__ import annotations

import json
from pathlib import Path
from urllib.parse import urlsplit

DATA = Path(__file__).parent / "data"
GITHUB_REPO = "octokit-fixture-org/paginate-issues"
RECORDED_HOST = "https://api.github.com"


def base_url(httpserver) -> str:
    return httpserver.url_for("").rstrip("/")


def github_pages() -> list[dict]:
    return json.loads((DATA / "github" / "paginate-issues.json").read_text())


def serve_github_listing(httpserver, pages: list[dict] | None = None) -> list[dict]:
    """The recorded five-page listing, its Link headers pointing back at this server; comments for every issue."""
    base = base_url(httpserver)
    pages = pages if pages is not None else github_pages()
    for i, exchange in enumerate(pages):
        parts = urlsplit(exchange["path"])
        headers = {k: v.replace(RECORDED_HOST, base) for k, v in exchange["headers"].items()
                   if k.lower() in {"link", "x-ratelimit-remaining", "x-ratelimit-limit", "x-ratelimit-reset"}}
        # The first request carries Concord's own query (state, per_page, sort, since): match on the path only.
        query = None if i == 0 else parts.query
        httpserver.expect_request(parts.path, query_string=query).respond_with_json(
            exchange["response"], status=exchange["status"], headers=headers
        )
    comments = json.loads((DATA / "github" / "issue-28-comments.json").read_text())
    for exchange in pages:
        for issue in exchange["response"]:
            httpserver.expect_request(f"/repos/{GITHUB_REPO}/issues/{issue['number']}/comments").respond_with_json(
                comments
            )
    return pages


def serve_gitee(httpserver, full_name: str = "mindspore/mindformers") -> None:
    pages = [json.loads((DATA / "gitee" / f"issues-page-{n}.json").read_text()) for n in (1, 2)]
    total = sum(len(p) for p in pages)
    for n, page in enumerate(pages, start=1):
        httpserver.expect_request(f"/repos/{full_name}/issues", query_string={
            "state": "all", "sort": "updated", "direction": "asc", "page": str(n), "per_page": "100",
        }).respond_with_json(page, headers={"total_count": str(total), "total_page": "2"})
    comments = json.loads((DATA / "gitee" / "comments-I8SLI3.json").read_text())
    httpserver.expect_request(f"/repos/{full_name}/issues/I8SLI3/comments").respond_with_json(
        comments, headers={"total_count": "1", "total_page": "1"}
    )
