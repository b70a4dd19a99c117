"""Loading labels made elsewhere (spreadsheets, published data sets) into a study, all or nothing.

Two CSV layouts, detected from the header:
- long: one row per label, columns report, annotator, and either label (a code or name at any level) or
  type / theme / sub_theme; optional note.
- wide: one row per report, a report column (Issue_URL, url, report or issue), one column per annotator
  (Label1…LabelN, or the columns named with raters=), optionally a final-label column (Final_Label, final or
  final_label). Any other column stops the import: a stray column must not become a person.
"""
from __future__ import annotations

import codecs
import csv
import gzip
import io
import re
import zlib
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from django.contrib.auth import get_user_model
from django.contrib.auth.validators import UnicodeUsernameValidator
from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models import Count, Exists, OuterRef, Subquery
from django.db.models.functions import Coalesce

from annotation import sql
from annotation.models import NOT_RELEVANT, Assignment, Label, Membership, Queue, Round, Study
from concord import rows
from concord.textcheck import length_problem, text_problem
from corpus import import_batches
from corpus.import_batches import ImportSummary
from ingest.models import Issue, Source
from taxonomy.models import Category, Codebook
from taxonomy.services import load_codebook

REPORT_COLUMNS = ("report", "issue", "issue_url", "url")
FINAL_COLUMNS = ("final_label", "final")
LONG_LABEL_COLUMNS = ("label", "type", "theme", "sub_theme")
_URL = re.compile(r"^https?://(?:www\.)?(github\.com|gitee\.com)/([^/\s]+/[^/\s]+)/issues/([^/?#\s]+)/?$")
_SHORT = re.compile(r"^([\w.-]+/[\w.-]+)#(\w+)$")
EXTERNAL_SOURCE = "external/ids"
CELL_LIMIT = 128 * 1024
# Labels read before a batch is written: what the import holds, whatever the file's length.
BATCH_ROWS = 50_000
IMPORT_LOCK = 0x696D706F7274  # "import": one label import at a time
RATER_COLUMN = re.compile(r"label\d+", re.IGNORECASE)
User = get_user_model()
username_rule = UnicodeUsernameValidator()


class ImportError_(ValueError):  # noqa: N801 - "ImportError" is a builtin
    """A file that cannot be imported; the message names the file, row and column. Nothing was changed."""


@dataclass(frozen=True)
class Chain:
    is_relevant: bool
    type_id: int | None = None
    theme_id: int | None = None
    sub_theme_id: int | None = None


@contextmanager
def _open(path: Path):
    """The file as text, gzip-compressed or not; faults of compression or encoding become ImportError_."""
    raw = gzip.open(path, "rb") if path.suffix == ".gz" else open(path, "rb")
    with io.TextIOWrapper(raw, encoding="utf-8-sig", newline="") as text:
        yield text


def _read_fault(path: Path, line: int, exc: Exception) -> ImportError_:
    if isinstance(exc, UnicodeDecodeError):
        # The text is decoded a block ahead of the rows read: the line is found again from the bytes.
        line = _first_line_not_utf8(path) or line
        what = f"not UTF-8 text ({exc.reason})"
    elif isinstance(exc, gzip.BadGzipFile | zlib.error):
        what = f"not a gzip file ({exc}; expected a .csv, or a .csv.gz made by gzip)"
    elif isinstance(exc, EOFError):
        what = "the gzip file is cut short (it ends before its end marker)"
    elif isinstance(exc, csv.Error) and "unexpected end of data" in str(exc):
        what = "a quoted cell opened in this row is never closed (expected a closing \")"
    else:
        what = str(exc)
    return ImportError_(f"{path.name}:{line}: {what}; nothing was imported")


def _first_line_not_utf8(path: Path) -> int | None:
    """The number of the first line whose bytes are not UTF-8, read a block at a time (a line may be long)."""
    decoder = codecs.getincrementaldecoder("utf-8")()
    line = 1
    with gzip.open(path, "rb") if path.suffix == ".gz" else open(path, "rb") as raw:
        for block in iter(lambda: raw.read(1 << 16), b""):
            # Bytes of a character begun in the block before: the error's place counts them too.
            held = len(decoder.getstate()[0])
            try:
                decoder.decode(block)
            except UnicodeDecodeError as exc:
                return line + block.count(b"\n", 0, max(0, exc.start - held))
            line += block.count(b"\n")
    return None


_READ_FAULTS = (UnicodeDecodeError, gzip.BadGzipFile, zlib.error, EOFError, csv.Error)


class Codes:
    """A category by code at any level (C.5, C.5.ii) or by name; the levels above follow from the tree."""

    def __init__(self, codebook: Codebook):
        self.by_id = {c.pk: c for c in Category.objects.filter(codebook=codebook)}
        self.by_code = {c.code.lower(): c for c in self.by_id.values()}
        self.by_name = {c.name.strip().lower(): c for c in self.by_id.values()}

    def chain(self, value: str) -> Chain | None:
        key = value.strip().lower()
        if key in {NOT_RELEVANT.lower(), "not relevant", "not_relevant"}:
            return Chain(is_relevant=False)
        node = self.by_code.get(key) or self.by_name.get(key)
        if node is None:
            return None
        ids = [node.pk]
        while self.by_id[ids[-1]].parent_id:
            ids.append(self.by_id[ids[-1]].parent_id)
        ids.reverse()
        ids += [None] * (3 - len(ids))
        return Chain(True, *ids)


def _report_key(value: str) -> tuple[str, str, str] | None:
    """(platform, owner/name, number) for a URL or OWNER/NAME#N; external ids get their own source."""
    value = value.strip()
    if not value:
        return None
    if match := _URL.match(value):
        platform = Source.Platform.GITEE if match.group(1) == "gitee.com" else Source.Platform.GITHUB
        return platform, match.group(2), match.group(3)
    if match := _SHORT.match(value):
        return Source.Platform.GITHUB, match.group(1), match.group(2)
    return Source.Platform.FILE, EXTERNAL_SOURCE, value


def _layout(header: list[str]) -> str:
    lowered = [h.strip().lower() for h in header]
    if "annotator" in lowered and any(c in lowered for c in LONG_LABEL_COLUMNS):
        return "long"
    return "wide"


def _column(header: list[str], names: tuple[str, ...]) -> int | None:
    lowered = [h.strip().lower() for h in header]
    return next((lowered.index(n) for n in names if n in lowered), None)


def _rater_columns(header: list[str], path: Path, raters: list[str] | None, skip: set[int]) -> dict[int, str]:
    """Wide layout: the columns that are annotators. A column is a rater only when declared so (Label1…LabelN
    by default, or named with raters=): a stray column such as "Final Label" must not become a person."""
    if raters is not None:
        where = {h.strip(): i for i, h in enumerate(header)}
        missing = [r for r in raters if r not in where]
        if missing:
            raise ImportError_(f"{path.name}:1: no column named {', '.join(map(repr, missing))} (the raters asked "
                               "for); nothing was imported")
        chosen = {where[r]: r for r in raters}
    else:
        chosen = {i: h.strip() for i, h in enumerate(header) if RATER_COLUMN.fullmatch(h.strip())}
    for i, name in enumerate(header):
        if i not in chosen and i not in skip and name.strip():
            raise ImportError_(
                f"{path.name}:1: column {name.strip()!r} is not the report, a rater or the final label "
                f"(expected {', '.join(REPORT_COLUMNS)}; Label1…LabelN or the columns given with --raters; "
                f"{', '.join(FINAL_COLUMNS)}); nothing was imported")
    if not chosen:
        raise ImportError_(f"{path.name}:1: no rater columns (expected Label1…LabelN, or name them with --raters)")
    return chosen


def _cell(row: list[str], index: int | None) -> str:
    return row[index] if index is not None and index < len(row) else ""


def _checked_text(path: Path, line: int, column: str, value: str, limit: int | None = None) -> str:
    problem = text_problem(value) or (length_problem(value, limit) if limit else None)
    if problem:
        raise ImportError_(f"{path.name}:{line}: column {column}: {problem}; nothing was imported")
    return value


@dataclass
class _Header:
    """Where a label file keeps what: its layout ("long": a row per label; "wide": a column per annotator)."""

    cells: list[str]
    layout: str
    report: int
    final: int | None = None  # wide: the final label's column
    raters: dict[int, str] = field(default_factory=dict)  # wide: column → annotator
    columns: dict[str, int | None] = field(default_factory=dict)  # long: annotator, label, type, theme, … → column


def _header(path: Path, cells: list[str] | None, raters: list[str] | None, username_room: int) -> _Header:
    if not cells:
        raise ImportError_(f"{path.name}:1: the file is empty (expected a header row)")
    report = _column(cells, REPORT_COLUMNS)
    if report is None:
        raise ImportError_(f"{path.name}:1: no report column (expected one of {', '.join(REPORT_COLUMNS)})")
    head = _Header(cells, _layout(cells), report)
    if head.layout == "wide":
        head.final = _column(cells, FINAL_COLUMNS)
        head.raters = _rater_columns(cells, path, raters, {report, head.final})
        for index, name in head.raters.items():
            _annotator_name(path, 1, f"{cells[index]} (header)", name, username_room)
    else:
        head.columns = {n: _column(cells, (n,)) for n in ("annotator", "label", "sub_theme", "theme", "type", "note")}
    return head


class _Rows:
    """Labels and final labels read from a file's rows, a batch at a time; every message names the file, line
    and column."""

    def __init__(self, path: Path, codes: Codes, head: _Header, username_room: int) -> None:
        self.path, self.codes, self.head, self.username_room = path, codes, head, username_room
        self.labels: list[tuple[tuple, str, Chain, str]] = []
        self.finals: list[tuple[tuple, Chain]] = []

    def resolve(self, line: int, column: str, value: str) -> Chain:
        chain = self.codes.chain(value)
        if chain is None:
            shown = value if len(value) <= 60 else value[:57] + "..."
            raise ImportError_(f"{self.path.name}:{line}: column {column}: {shown!r} is not a code or name of the "
                               "study's codebook; nothing was imported")
        return chain

    def read(self, line: int, row: list[str]) -> None:
        path, head = self.path, self.head
        if any(len(cell) > CELL_LIMIT for cell in row):
            raise ImportError_(f"{path.name}:{line}: a cell of more than {CELL_LIMIT:,} characters (a label file "
                               "holds codes and short notes); nothing was imported")
        if not any(cell.strip() for cell in row):
            return
        report = _report_key(_cell(row, head.report))
        if report is None:
            raise ImportError_(f"{path.name}:{line}: column {head.cells[head.report]}: no report named")
        _check_report(path, line, head.cells[head.report], report)
        if head.layout == "long":
            self._long(line, row, report)
        else:
            self._wide(line, row, report)

    def taken(self) -> tuple[list[tuple[tuple, str, Chain, str]], list[tuple[tuple, Chain]]]:
        """The rows read since the last call."""
        labels, finals, self.labels, self.finals = self.labels, self.finals, [], []
        return labels, finals

    def _long(self, line: int, row: list[str], report: tuple) -> None:
        path, columns = self.path, self.head.columns
        annotator = _annotator_name(path, line, "annotator", _cell(row, columns["annotator"]).strip(),
                                    self.username_room)
        if columns["label"] is not None:
            column, value = self.head.cells[columns["label"]], _cell(row, columns["label"])
        else:
            column = "type/theme/sub_theme"
            value = next((_cell(row, columns[n]) for n in ("sub_theme", "theme", "type")
                          if _cell(row, columns[n]).strip()), "")
        if not annotator or not value.strip():
            raise ImportError_(f"{path.name}:{line}: an annotator and a label are needed "
                               f"(columns annotator and {column})")
        note = _checked_text(path, line, "note", _cell(row, columns["note"]).strip())
        self.labels.append((report, annotator, self.resolve(line, column, value), note))

    def _wide(self, line: int, row: list[str], report: tuple) -> None:
        head = self.head
        for index, name in head.raters.items():
            if value := _cell(row, index).strip():
                self.labels.append((report, name, self.resolve(line, head.cells[index], value), ""))
        if head.final is not None and (value := _cell(row, head.final).strip()):
            self.finals.append((report, self.resolve(line, head.cells[head.final], value)))


def _batches(path: Path, codes: Codes, raters: list[str] | None = None, prefix: str = ""):
    """The file's layout first, then its rows in batches of about BATCH_ROWS labels: (labels as (report key,
    annotator, chain, note), finals as (report key, chain)). Errors name the file, the line where the row starts
    and the column."""
    line = 1
    try:
        with _open(path) as f:
            reader = csv.reader(f, strict=True)
            username_room = User.username.field.max_length - len(prefix)
            head = _header(path, next(reader, None), raters, username_room)
            yield head.layout
            rows = _Rows(path, codes, head, username_room)
            # Messages name the line where a row starts (a quoted cell may span lines).
            line = reader.line_num + 1
            for row in reader:
                next_line = reader.line_num + 1
                rows.read(line, row)
                line = next_line
                if len(rows.labels) + len(rows.finals) >= BATCH_ROWS:
                    yield rows.taken()
    except _READ_FAULTS as exc:
        raise _read_fault(path, line, exc) from exc
    yield rows.taken()


def _annotator_name(path: Path, line: int, column: str, name: str, room: int) -> str:
    """A name that can be a username (with the prefix): Django's own rule for usernames, and their length."""
    if not name:
        return name
    problem = text_problem(name) or length_problem(name, room)
    if problem is None:
        try:
            username_rule(name)
        except ValidationError:
            problem = f"{name[:40]!r} cannot be a username (expected letters, digits and @ . + - _ only)"
    if problem:
        raise ImportError_(f"{path.name}:{line}: column {column}: {problem}; nothing was imported")
    return name


def _check_report(path: Path, line: int, column: str, report: tuple[str, str, str]) -> None:
    _platform, full_name, number = report
    for what, value, limit in (("repository", full_name, Source._meta.get_field("full_name").max_length),
                               ("issue number", number, Issue._meta.get_field("number").max_length)):
        if problem := text_problem(value):  # "contains a NUL character at …"
            raise ImportError_(f"{path.name}:{line}: column {column}: the {what} {problem}; nothing was imported")
        if problem := length_problem(value, limit):  # "70 characters long (at most 32)"
            raise ImportError_(f"{path.name}:{line}: column {column}: the {what} is {problem}; nothing was imported")


def _round_for(study: Study) -> Round:
    round = study.rounds.filter(kind=Round.Kind.INDEPENDENT).order_by("-number").first()
    if round is None:
        round = Round.objects.create(study=study, number=(study.rounds.count() + 1), kind=Round.Kind.INDEPENDENT)
        study.current_round = round
        study.save(update_fields=["current_round"])
    return round


def _sync_queues(round: Round) -> None:
    """Queues of annotators who have one in the round count the imported labels as done."""
    labeled = Label.objects.filter(round=round, annotator_id=OuterRef("queue__annotator_id"),
                                   issue_id=OuterRef("issue_id"))
    Assignment.objects.filter(queue__round=round, done=False).filter(Exists(labeled)).update(done=True)
    done = Assignment.objects.filter(queue=OuterRef("pk"), done=True).values("queue").annotate(n=Count("pk"))
    Queue.objects.filter(round=round).update(done=Coalesce(Subquery(done.values("n")), 0))


@transaction.atomic
def import_labels(study_name: str, path: str | Path, *, codebook: Codebook | None = None, prefix: str = "",
                  lead=None, keep_first: bool = False, raters: list[str] | None = None) -> ImportSummary:
    """raters: the wide layout's annotator columns, when not Label1…LabelN.

    The file is read and written a batch of rows at a time, so that what is held stays the same whatever its
    length (see corpus/import_batches.py); one transaction holds every batch, so a fault on any line leaves
    nothing imported."""
    path = Path(path)
    if not path.is_file():
        raise ImportError_(f"{path}: no such file")
    for what, value, limit in (("study", study_name, Study._meta.get_field("name").max_length),
                               ("prefix", prefix, User.username.field.max_length - 1)):
        if problem := text_problem(value) or length_problem(value, limit):
            raise ImportError_(f"{what}: {problem}")
    if not study_name.strip():
        raise ImportError_("study: a name is needed")
    # Two imports at once would both make the same study, annotators, sources and reports, and the second would
    # end on a unique constraint: an import waits here until any other has committed, then sees what it made.
    rows.advisory_lock(IMPORT_LOCK)
    study = Study.objects.filter(name=study_name).select_related("codebook").first()
    created = study is None
    if created:
        study = Study.objects.create(name=study_name, codebook=codebook or load_codebook(),
                                     phase=Study.Phase.INDEPENDENT, description=f"Labels imported from {path.name}")
    batches = _batches(path, Codes(study.codebook), raters=raters, prefix=prefix)
    summary = ImportSummary(study=study, study_created=created, layout=next(batches))
    if lead is not None:
        Membership.objects.get_or_create(study=study, user=lead, defaults={"role": Membership.Role.LEAD})
    round = _round_for(study)
    writer = import_batches.Writer(summary, round, prefix)
    try:
        for labels, finals in batches:
            writer.write(labels, finals)
    except import_batches.LabelConflict as exc:
        raise ImportError_(f"{path}: {exc}") from exc
    doubled = writer.doubled
    if doubled.count and not keep_first:
        more = doubled.count - len(doubled.first)
        shown = ", ".join(doubled.first) + (f" and {more} more" if more else "")
        raise ImportError_(f"{path}: {doubled.count} reports are labeled twice by the same annotators: {shown}. "
                           "Nothing was imported; --keep-first keeps each first label.")
    writer.finish(f"imported from {path.name}")
    _sync_queues(round)
    sql.analyze(Label)
    return summary
