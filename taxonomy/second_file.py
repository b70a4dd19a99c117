"""A codebook's second language as one file, for a translator: a CSV row per category in use, with the
codebook's own texts beside the columns to fill in. Read back, only the second-language columns count; the
codebook's own are there to translate from, and a change to them is not a change to the codebook."""
from __future__ import annotations

import csv
import io
from dataclasses import dataclass

from django.conf import settings

from concord.errors import FieldError
from concord.textcheck import fitted

from .languages import FIELDS, SECOND
from .models import Category, Codebook
from .selectors import codebook_tree

COLUMNS = ("code", *FIELDS, "second_language", *SECOND)
# The shipped codebook's file is about 60 kB; a translator's notes may make a lead's larger, never this large.
MAX_BYTES = 5_000_000
MAX_ROWS = 5_000


class SecondFileError(ValueError):
    """A file that cannot be read; the message names the file, line and column."""


@dataclass(frozen=True)
class Translation:
    language: str
    texts: dict[str, dict[str, str]]  # per category code: its second-language fields
    lines: dict[str, int]  # per category code: the line of the file it was on


def to_csv(codebook: Codebook) -> str:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\r\n")
    writer.writerow(COLUMNS)

    def rows(categories) -> None:
        for category in categories:
            writer.writerow([category.code, *(getattr(category, f) for f in FIELDS), codebook.second_language,
                             *(getattr(category, f) for f in SECOND)])
            rows(category.kids)

    rows(codebook_tree(codebook))
    return out.getvalue()


def _reader(data: bytes, name: str) -> csv.DictReader:
    """The file as CSV rows, once it is small enough, UTF-8 and has the columns a second language needs."""
    if len(data) > MAX_BYTES:
        raise SecondFileError(f"{name}: {len(data):,} bytes; at most {MAX_BYTES:,}")
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data[:exc.start].count(b"\n") + 1
        raise SecondFileError(f"{name}:{line}: not UTF-8 text (byte {exc.start})") from None
    reader = csv.DictReader(io.StringIO(text, newline=""), strict=True)
    try:
        header = reader.fieldnames or []
    except csv.Error as exc:
        raise SecondFileError(f"{name}:1: {exc}") from None
    missing = [c for c in ("code", "second_language", *SECOND) if c not in header]
    if missing:
        raise SecondFileError(f"{name}:1: the header lacks {', '.join(missing)} (the columns are "
                              f"{', '.join(COLUMNS)})")
    return reader


def read_csv(data: bytes, name: str = "second-language.csv") -> Translation:
    reader = _reader(data, name)
    languages = [code for code, _ in settings.LANGUAGES]
    found, lines, language = {}, {}, None
    try:
        for row in reader:
            line = reader.line_num
            if len(found) >= MAX_ROWS:
                raise SecondFileError(f"{name}:{line}: more than {MAX_ROWS:,} rows")
            code = _code(row, name, line, lines)
            language = _language(row, name, line, languages, language)
            found[code] = {f: _cell(row, f, name, line, Category._meta.get_field(f).max_length) for f in SECOND}
            lines[code] = line
    except csv.Error as exc:
        raise SecondFileError(f"{name}:{reader.line_num}: {exc}") from None
    if language is None:
        raise SecondFileError(f"{name}: no category in it")
    return Translation(language, found, lines)


def _code(row: dict, name: str, line: int, lines: dict[str, int]) -> str:
    """The row's category code: a row the header fits, with a code no line above has."""
    if None in row:
        raise SecondFileError(f"{name}:{line}: more cells than the header has columns")
    code = _cell(row, "code", name, line, Category._meta.get_field("code").max_length)
    if not code:
        raise SecondFileError(f"{name}:{line}: code: empty")
    if code in lines:
        raise SecondFileError(f"{name}:{line}: code: {code} is on line {lines[code]} too")
    return code


def _language(row: dict, name: str, line: int, languages: list[str], language: str | None) -> str:
    """The row's second language: one Concord speaks, and the one the lines above say."""
    given = _cell(row, "second_language", name, line, 20)
    if given not in languages:
        raise SecondFileError(f"{name}:{line}: second_language: {given[:20]!r} is not one of "
                              f"{', '.join(languages)}")
    if language not in (None, given):
        raise SecondFileError(f"{name}:{line}: second_language: {given}, where the lines above say "
                              f"{language}; a codebook has one second language")
    return given


def _cell(row: dict, column: str, name: str, line: int, limit: int) -> str:
    try:
        return fitted((row.get(column) or "").strip(), column, limit)
    except FieldError as exc:
        raise SecondFileError(f"{name}:{line}: {exc}") from None
