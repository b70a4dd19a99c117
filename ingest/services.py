from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from django.db import transaction

from .importers import IssueRecord
from .importers.jsonl import read_jsonl
from .models import Issue, Source

UPSERT_FIELDS = [
    "url", "title", "body", "author", "state", "platform_labels", "created_at", "closed_at",
    "comment_count", "comments", "payload",
]
BATCH = 500


@dataclass(frozen=True)
class ImportResult:
    created: int
    updated: int
    skipped_pull_requests: int

    def __str__(self) -> str:
        return (
            f"{self.created} created, {self.updated} updated, "
            f"{self.skipped_pull_requests} pull requests skipped"
        )


def get_or_create_source(full_name: str, platform: str = Source.Platform.GITHUB, **defaults) -> Source:
    if full_name.count("/") != 1 or not all(full_name.split("/")):
        raise ValueError(f"source {full_name!r}: expected OWNER/NAME")
    source, _ = Source.objects.get_or_create(platform=platform, full_name=full_name, defaults=defaults)
    return source


def upsert_issues(source: Source, records: list[IssueRecord]) -> tuple[int, int]:
    """Insert or update on (source, number): re-importing never duplicates and never drops a report."""
    # The last occurrence of a number in one file wins, as a later dump line is the newer state.
    by_number = {r.number: r for r in records}
    existing = set(
        Issue.objects.filter(source=source, number__in=list(by_number)).values_list("number", flat=True)
    )
    rows = [
        Issue(source=source, number=r.number, **{f: getattr(r, f) for f in UPSERT_FIELDS})
        for r in by_number.values()
    ]
    Issue.objects.bulk_create(
        rows,
        batch_size=BATCH,
        update_conflicts=True,
        unique_fields=["source", "number"],
        update_fields=UPSERT_FIELDS,
    )
    return len(by_number) - len(existing), len(existing)


def import_jsonl(path: str | Path, source: Source) -> ImportResult:
    """Import a JSON Lines file; a bad line raises ImportFileError and nothing is written."""
    records, pulls = [], 0
    # Read and validate the whole file before the first write, so a bad line changes nothing.
    for record in read_jsonl(path):
        if record is None:
            pulls += 1
        else:
            records.append(record)
    with transaction.atomic():
        created, updated = upsert_issues(source, records)
    return ImportResult(created=created, updated=updated, skipped_pull_requests=pulls)
