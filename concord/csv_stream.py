"""Streaming CSV downloads: rows are written as they are read, so a big study or corpus fits in memory."""
from __future__ import annotations

import csv
from collections.abc import Iterable

from django.http import StreamingHttpResponse


class _Echo:
    # csv.writer wants a file; this one hands each row back so the response can stream it.
    def write(self, value: str) -> str:
        return value


# OWASP's CSV-injection rule: a spreadsheet treats a cell starting with one of these as a formula (tab and
# carriage return can hide one), so such a cell gets a leading apostrophe, which spreadsheets show as text.
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def neutralise(cell):
    if isinstance(cell, str) and cell.startswith(FORMULA_STARTS):
        return "'" + cell
    return cell


def csv_lines(header: list[str], rows: Iterable[list], raw: bool = False) -> Iterable[str]:
    """CSV text row by row. Cells that a spreadsheet would run as a formula are neutralised unless `raw`
    (for scripts, which want the text exactly as stored)."""
    writer = csv.writer(_Echo())
    yield writer.writerow(header)
    if raw:
        for row in rows:
            yield writer.writerow(row)
        return
    for row in rows:
        yield writer.writerow([neutralise(cell) for cell in row])


def csv_response(lines: Iterable[str], filename: str) -> StreamingHttpResponse:
    response = StreamingHttpResponse(lines, content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="{filename}"'
    return response
