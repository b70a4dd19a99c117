"""Loading labels made elsewhere (spreadsheets, published data sets) into a study, all or nothing.

Two CSV layouts, detected from the header:
- long: one row per label, columns report, annotator, and either label (a code or name at any level) or
  type / theme / sub_theme; optional note.
- wide: one row per report, a report column (Issue_URL, url, report or issue), one column per annotator
  (Label1…Label7, or names), optionally a final-label column (Final_Label, final or final_label).
"""
from __future__ import annotations

import csv
import gzip
import io
import re
from dataclasses import dataclass, field
from pathlib import Path

from django.contrib.auth import get_user_model
from django.db import connection, transaction
from django.db.models import Count, Exists, Max, OuterRef, Subquery
from django.db.models.functions import Coalesce
from django.utils import timezone

from ingest.models import Issue, Source
from taxonomy.models import Category, Taxonomy

from ..bulk_rows import history_from, insert_rows
from ..models import NOT_RELEVANT, Assignment, Decision, Label, Membership, Queue, Round, Study

REPORT_COLUMNS = ("report", "issue", "issue_url", "url")
FINAL_COLUMNS = ("final_label", "final")
LONG_LABEL_COLUMNS = ("label", "type", "theme", "sub_theme")
_URL = re.compile(r"^https?://(?:www\.)?(github\.com|gitee\.com)/([^/\s]+/[^/\s]+)/issues/([^/?#\s]+)/?$")
_SHORT = re.compile(r"^([\w.-]+/[\w.-]+)#(\w+)$")
EXTERNAL_SOURCE = "external/ids"


class ImportError_(ValueError):  # noqa: N801 - "ImportError" is a builtin
    """A file that cannot be imported; the message names the file, row and column. Nothing was changed."""


@dataclass
class ImportSummary:
    study: Study
    study_created: bool = False
    layout: str = ""
    rows: int = 0
    labels_new: int = 0
    labels_unchanged: int = 0
    annotators_created: list[str] = field(default_factory=list)
    reports_created: int = 0
    decisions: int = 0
    duplicates_skipped: int = 0


@dataclass(frozen=True)
class Chain:
    is_relevant: bool
    type_id: int | None = None
    theme_id: int | None = None
    sub_theme_id: int | None = None


def _open(path: Path):
    raw = gzip.open(path, "rb") if path.suffix == ".gz" else open(path, "rb")
    return io.TextIOWrapper(raw, encoding="utf-8-sig", newline="")


class Codes:
    """A category by code at any level (C.5, C.5.ii) or by name; the levels above follow from the tree."""

    def __init__(self, taxonomy: Taxonomy):
        self.by_id = {c.pk: c for c in Category.objects.filter(taxonomy=taxonomy)}
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


def _parse(path: Path, codes: Codes):
    """Rows as (report key, annotator, chain, note) and finals as report key → chain; errors name row and column."""
    labels: list[tuple[tuple, str, Chain, str]] = []
    finals: dict[tuple, Chain] = {}
    with _open(path) as f:
        reader = csv.reader(f)
        header = next(reader, None)
        if not header:
            raise ImportError_(f"{path}: the file is empty")
        layout = _layout(header)
        report_col = _column(header, REPORT_COLUMNS)
        if report_col is None:
            raise ImportError_(f"{path}: no report column (one of {', '.join(REPORT_COLUMNS)})")

        def resolve(row_no: int, column: str, value: str) -> Chain:
            chain = codes.chain(value)
            if chain is None:
                raise ImportError_(f"{path}: row {row_no}, column {column}: {value!r} is not a code or name "
                                   "of the study's codebook; nothing was imported")
            return chain

        for row_no, row in enumerate(reader, start=2):
            if not any(cell.strip() for cell in row):
                continue
            report = _report_key(row[report_col] if report_col < len(row) else "")
            if report is None:
                raise ImportError_(f"{path}: row {row_no}, column {header[report_col]}: no report named")
            if layout == "long":
                annotator = row[_column(header, ("annotator",))].strip()
                label_col = _column(header, ("label",))
                parts = [row[label_col]] if label_col is not None else [
                    row[i] for i in (_column(header, (n,)) for n in ("sub_theme", "theme", "type"))
                    if i is not None and i < len(row) and row[i].strip()][:1]
                if not annotator or not parts or not parts[0].strip():
                    raise ImportError_(f"{path}: row {row_no}: an annotator and a label are needed")
                column = header[label_col] if label_col is not None else "type/theme/sub_theme"
                note_col = _column(header, ("note",))
                note = row[note_col].strip() if note_col is not None and note_col < len(row) else ""
                labels.append((report, annotator, resolve(row_no, column, parts[0]), note))
                continue
            final_col = _column(header, FINAL_COLUMNS)
            for index, name in enumerate(header):
                value = row[index].strip() if index < len(row) else ""
                if index == report_col or not value:
                    continue
                chain = resolve(row_no, name, value)
                if index == final_col:
                    finals.setdefault(report, chain)
                else:
                    labels.append((report, name.strip(), chain, ""))
    return layout, labels, finals


def _reports(keys: set[tuple]) -> tuple[dict[tuple, int], int]:
    """Issue ids for every report key; missing reports are created with their URL only."""
    sources = {}
    for platform, full_name, _ in keys:
        if (platform, full_name) not in sources:
            sources[(platform, full_name)] = Source.objects.get_or_create(platform=platform, full_name=full_name)[0]
    ids: dict[tuple, int] = {}
    missing = []
    for (platform, full_name), source in sources.items():
        wanted = {number for p, n, number in keys if (p, n) == (platform, full_name)}
        found = dict(Issue.objects.filter(source=source, number__in=wanted).values_list("number", "pk"))
        for number in wanted:
            if number in found:
                ids[(platform, full_name, number)] = found[number]
            else:
                host = "gitee.com" if platform == Source.Platform.GITEE else "github.com"
                url = f"https://{host}/{full_name}/issues/{number}" if platform != Source.Platform.FILE else ""
                missing.append(Issue(source=source, number=number, url=url, title=""))
    created = Issue.objects.bulk_create(missing, batch_size=5000)
    for issue in created:
        ids[(issue.source.platform, issue.source.full_name, issue.number)] = issue.pk
    return ids, len(created)


def _annotators(names: list[str], prefix: str) -> tuple[dict[str, int], list[str]]:
    User = get_user_model()
    wanted = {n: f"{prefix}{n}" for n in names}
    found = dict(User.objects.filter(username__in=wanted.values()).values_list("username", "pk"))
    created = []
    for username in wanted.values():
        if username not in found:
            # Raters of record: they exist to own their labels and cannot log in.
            user = User(username=username, is_active=False)
            user.set_unusable_password()
            user.save()
            found[username] = user.pk
            created.append(username)
    return {n: found[u] for n, u in wanted.items()}, created


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
def import_labels(study_name: str, path: str | Path, *, codebook: Taxonomy | None = None, prefix: str = "",
                  lead=None, keep_first: bool = False) -> ImportSummary:
    path = Path(path)
    if not path.exists():
        raise ImportError_(f"{path}: no such file")
    study = Study.objects.filter(name=study_name).select_related("taxonomy").first()
    created = study is None
    if created:
        from taxonomy.services import load_codebook

        study = Study.objects.create(name=study_name, taxonomy=codebook or load_codebook(),
                                     phase=Study.Phase.INDEPENDENT, description=f"Labels imported from {path.name}")
    layout, rows, finals = _parse(path, Codes(study.taxonomy))
    summary = ImportSummary(study=study, study_created=created, layout=layout, rows=len(rows))
    if lead is not None:
        Membership.objects.get_or_create(study=study, user=lead, defaults={"role": Membership.Role.LEAD})
    report_ids, summary.reports_created = _reports({r[0] for r in rows} | set(finals))
    annotator_ids, summary.annotators_created = _annotators(sorted({r[1] for r in rows}), prefix)
    study.issues.add(*set(report_ids.values()))
    Membership.objects.bulk_create([Membership(study=study, user_id=pk) for pk in annotator_ids.values()],
                                   ignore_conflicts=True)
    round = _round_for(study)
    existing = {(i, a): (rel, t, th, s, note) for i, a, rel, t, th, s, note in Label.objects.filter(round=round)
                .values_list("issue_id", "annotator_id", "is_relevant", "type_id", "theme_id", "sub_theme_id", "note")}
    new, seen, doubled = [], set(), []
    for report, annotator, chain, note in rows:
        key = (report_ids[report], annotator_ids[annotator])
        values = (chain.is_relevant, chain.type_id, chain.theme_id, chain.sub_theme_id, note)
        if key in seen:
            doubled.append(f"{report[1]}#{report[2]} ({annotator})")
            continue
        seen.add(key)
        if key in existing:
            if existing[key] != values:
                raise ImportError_(f"{path}: {annotator} already has a different label for {report[1]}#{report[2]} "
                                   f"in round {round.number}; labels are never overwritten by an import, so "
                                   "nothing was imported")
            summary.labels_unchanged += 1
            continue
        new.append((key[0], key[1], chain, note))
    if doubled and not keep_first:
        reports = list(dict.fromkeys(d.rsplit(" (", 1)[0] for d in doubled))
        shown = ", ".join(reports[:10]) + (f" and {len(reports) - 10} more" if len(reports) > 10 else "")
        raise ImportError_(f"{path}: {len(reports)} reports are labeled twice by the same annotators: {shown}. "
                           "Nothing was imported; --keep-first keeps each first label.")
    summary.duplicates_skipped = len(doubled)
    _write_labels(round, new, f"imported from {path.name}")
    summary.labels_new = len(new)
    _sync_queues(round)
    summary.decisions = _import_finals(study, finals, report_ids)
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute(f"ANALYZE {Label._meta.db_table}")
    return summary


def _write_labels(round: Round, new: list[tuple[int, int, Chain, str]], reason: str) -> None:
    before = Label.objects.aggregate(top=Max("pk"))["top"] or 0
    now = timezone.now()
    insert_rows(Label, ["study_id", "round_id", "issue_id", "annotator_id", "is_relevant", "type_id", "theme_id",
                        "sub_theme_id", "note", "created_at", "updated_at"],
                ((round.study_id, round.pk, issue_id, annotator_id, c.is_relevant, c.type_id, c.theme_id,
                  c.sub_theme_id, note, now, now) for issue_id, annotator_id, c, note in new))
    history_from(Label, "round_id = %s AND id > %s", [round.pk, before], reason)


def _import_finals(study: Study, finals: dict[tuple, Chain], report_ids: dict[tuple, int]) -> int:
    existing = set(Decision.objects.filter(study=study).values_list("issue_id", flat=True))
    new = [(report_ids[key], c) for key, c in finals.items() if report_ids[key] not in existing]
    before = Decision.objects.aggregate(top=Max("pk"))["top"] or 0
    now = timezone.now()
    insert_rows(Decision, ["study_id", "issue_id", "is_relevant", "type_id", "theme_id", "sub_theme_id", "method",
                           "rationale", "decided_at"],
                ((study.pk, issue_id, c.is_relevant, c.type_id, c.theme_id, c.sub_theme_id,
                  Decision.Method.IMPORTED, "", now) for issue_id, c in new))
    history_from(Decision, "study_id = %s AND id > %s", [study.pk, before], "imported final label")
    return len(new)
