"""Reading the study's interview tables (CodeBook.csv of coded quotes; the interviewee table, CSV or XLSX):
rows as dictionaries keyed by header, and the values their columns hold. No database."""
from __future__ import annotations

import csv
import io
import re
from pathlib import Path


class InterviewError(ValueError):
    """Input that cannot be recorded; the message names the row, field or code."""


def split_codes(text: str) -> list[str]:
    return [c.strip() for c in re.split(r"[,;]", text) if c.strip()]


def read_rows(path: Path) -> list[dict[str, str]]:
    if path.suffix.lower() == ".xlsx":
        import openpyxl  # deferred: heavy, a quarter of a second to import, for .xlsx uploads only

        try:
            sheet = openpyxl.load_workbook(path, read_only=True, data_only=True).worksheets[0]
            values = [["" if v is None else str(v).strip() for v in row] for row in sheet.iter_rows(values_only=True)]
        except Exception as exc:  # noqa: BLE001 - openpyxl raises many kinds for a bad file
            raise InterviewError(f"{path.name}: not a readable XLSX workbook ({exc})") from exc
        if not values:
            return []
        header, body = values[0], values[1:]
        return [dict(zip(header, row, strict=False)) for row in body if any(row)]
    try:
        text = path.read_text(encoding="utf-8-sig")
    except (OSError, UnicodeDecodeError) as exc:
        raise InterviewError(f"{path.name}: cannot be read as UTF-8 text ({exc})") from exc
    reader = csv.DictReader(io.StringIO(text), strict=True)
    try:
        return [{k.strip(): (v or "").strip() for k, v in row.items() if isinstance(k, str)} for row in reader]
    except csv.Error as exc:
        raise InterviewError(f"{path.name}:{reader.line_num}: {exc}") from exc


def group_of(text: str) -> str:
    """The participant group a 'Type' or 'Roles' cell names: user, developer, or the cell itself."""
    lowered = text.lower()
    if "developer" in lowered:
        return "developer"
    if "user" in lowered:
        return "user"
    return lowered.strip() or "participant"


def years_of(text: str) -> float | None:
    """'3 years', '18 months' → years; anything else → unknown."""
    match = re.match(r"\s*(\d{1,3}(?:\.\d{1,2})?)\s*(year|month)", text.lower())
    if not match:
        return None
    value = float(match.group(1))
    return round(value / 12, 2) if match.group(2) == "month" else value
