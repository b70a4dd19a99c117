"""Streaming CSV downloads: rows are written as they are read, so a big study or corpus fits in memory."""
from __future__ import annotations

import csv
from collections.abc import Iterable

from django.http import StreamingHttpResponse


class _Echo:
    # csv.writer wants a file; this one hands each row back so the response can stream it.
    def write(self, value: str) -> str:
        return value


def csv_lines(header: list[str], rows: Iterable[list]) -> Iterable[str]:
    writer = csv.writer(_Echo())
    yield writer.writerow(header)
    for row in rows:
        yield writer.writerow(row)


def csv_response(lines: Iterable[str], filename: str) -> StreamingHttpResponse:
    response = StreamingHttpResponse(lines, content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="{filename}"'
    return response
