"""Turning a platform's API pages of issue objects into Pages: the part GitHub and Gitee fetchers share."""
from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import replace

from ..importers import ImportFileError, IssueRecord
from ..importers.github_fields import comments_of, is_pull_request, record_from_github
from ..importers.text import scrub
from . import FetchError, Page

CommentFetcher = Callable[[IssueRecord], list]


def record_pages(api, since, until) -> Iterator[Page]:
    """`api`'s pages of issues (integrations.github or .gitee) as records, with their comments, until an issue
    updated after `until` is seen."""
    for answer, total in api.issue_pages(since):
        page = page_from_items(answer.url, answer.data, until, lambda record: api.comments(record.number))
        page.total = total
        yield page
        if page.reached_until:
            return


def page_from_items(url: str, items, until, fetch_comments: CommentFetcher) -> Page:
    """Records in page order; stops at the first issue updated after `until`."""
    if not isinstance(items, list):
        raise FetchError(f"GET {url}: the body is not a list of issues")
    page = Page(records=[])
    for i, obj in enumerate(items):
        where = f"GET {url}, item {i}"
        if not isinstance(obj, dict):
            raise FetchError(f"{where}: not an issue object")
        obj = scrub(obj)
        if is_pull_request(obj):
            page.records.append(None)
            continue
        try:
            record = record_from_github(obj, where)
        except ImportFileError as exc:
            raise FetchError(str(exc)) from exc
        if until is not None and record.source_updated_at and record.source_updated_at > until:
            page.high_water = record.source_updated_at
            page.reached_until = True
            break
        if record.comment_count:
            record = _with_comments(record, fetch_comments, page)
        page.records.append(record)
        page.high_water = record.source_updated_at or page.high_water
    return page


def _with_comments(record: IssueRecord, fetch_comments: CommentFetcher, page: Page) -> IssueRecord:
    try:
        count, parsed = comments_of(scrub(fetch_comments(record)), f"comments of #{record.number}")
    except (FetchError, ImportFileError) as exc:
        # The issue is kept with its count; the run reports the comments it could not fetch.
        page.errors.append(str(exc))
        return record
    return replace(record, comments=parsed, comment_count=max(count, record.comment_count))
