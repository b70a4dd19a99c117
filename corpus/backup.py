"""Backup and restore of a whole study: `export_study` writes everything about it as gzip-compressed
JSON Lines, `import_study` restores it into another Concord, all or nothing.

Format "concord-study", version 1: line 1 is a header {"format", "version", "study", "exported_at"}; then one
record per row, {"kind": "app.model", "pk": its id in the exporting database, "fields": {...},
"fk": {field: pk}, "m2m": {field: [pk, ...]}}, parents before children; the last line is
{"kind": "end", "records": n}, so that a truncated file is recognised. Ids are only references inside the
file: the importer gives every row a new id. Users are matched by username, sources by platform and name,
issues by source and number, keyword lists by name; everything else is created anew. Passwords, e-mail
addresses and invitation links are never written.

A file is untrusted input: a restore takes only the record kinds and fields that `backup_format` lists for the
file's version, validates every value as a form would (lengths, choices, ranges, NUL characters), never takes
a password, a staff or superuser flag, a group or a permission, and refuses anything else, naming its line.
Users it creates have an unusable password and no rights; `import_study` returns them so the admin can invite
them.
"""
from __future__ import annotations

import datetime as dt
import gzip
import itertools
import json
import uuid
from collections import defaultdict
from collections.abc import Iterator
from pathlib import Path
from typing import NamedTuple

import psycopg
from django.apps import apps
from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError
from django.db import DatabaseError, models, transaction
from django.utils import timezone

from agreement.models import AgreementSnapshot
from annotation.models import (
    Assignment,
    Comment,
    FinalLabel,
    Label,
    Membership,
    Queue,
    QueueWeight,
    Round,
    Seat,
    SeatLabel,
    Study,
    TiedReport,
)
from codebook.models import ChangeLogEntry, Proposal, Vote
from concord.audit import record as audit
from concord.errors import FieldError
from concord.textcheck import text_problem
from concord.weburl import web_url
from findings.models import ComparisonRecord, Subset
from ingest.models import (
    Issue,
    Keyword,
    KeywordList,
    ScreeningItem,
    ScreeningSample,
    ScreeningVote,
    Source,
    Summary,
    SummaryReview,
)
from interviews.models import Answer, GuideQuestion, InterviewGuide, InterviewSession, Participant, Quote
from machines.models import LlmCall, MachineLabel, MachineRater, MachineRun, ReplacementDecision
from machines.services.raters import checked_settings
from taxonomy.models import Codebook, Detail
from taxonomy.services import free_version

from . import copy_insert
from .backup_format import FORMATS, REFERENCES_RENAMED, RENAMED, Kind

FORMAT, VERSION = "concord-study", 13
# A record's own keys; the study's record also names its current round.
RECORD_KEYS = {"kind", "pk", "fields", "fk", "m2m"}


class StudyImportError(ValueError):
    """A backup that cannot be restored; the message names the file and line. Nothing was changed."""


def _json(value):
    if isinstance(value, dt.datetime | dt.date):
        return value.isoformat()
    if isinstance(value, uuid.UUID):
        return str(value)
    return value


CHUNK = 2000


def _as_field_takes(field, value, where: str):
    """The value as the field's Python type, past the field's own checks."""
    try:
        value = field.to_python(value)
        if value not in field.empty_values:
            # Empty values are what the exporting Concord stored (an issue known only by its URL has no
            # title); everything else must pass the field's own checks.
            field.run_validators(value)
            field.validate(value, None)
    except ValidationError as exc:
        raise StudyImportError(f"{where}: {' '.join(exc.messages)}") from exc
    except (TypeError, ValueError, OverflowError) as exc:
        raise StudyImportError(f"{where}: {exc}") from exc
    return value


def _fields_of(meta, skip) -> tuple[list, list]:
    """A model's fields a record carries, but its id and `skip`: plain values, and references."""
    kept = [f for f in meta.concrete_fields if not f.primary_key and f.name not in skip]
    return [f for f in kept if not f.is_relation], [f for f in kept if f.is_relation]


def _records(queryset, skip=(), m2m=()) -> Iterator[dict]:
    """Every row of the query as a record, read as plain columns rather than model instances, and each chunk's
    many-to-many references in one query per relation: a study's issues and labels are most of a backup, and
    building a model (or asking for its references) per row cost more than reading and writing it."""
    meta = queryset.model._meta
    plain, related = _fields_of(meta, skip)
    columns = [meta.pk.attname, *(f.attname for f in plain), *(f.attname for f in related)]
    split = 1 + len(plain)
    rows = queryset.values_list(*columns).iterator(CHUNK)
    while chunk := list(itertools.islice(rows, CHUNK)):
        references = {name: _references(meta.get_field(name), [row[0] for row in chunk]) for name in m2m}
        for row in chunk:
            record = {"kind": meta.label_lower, "pk": row[0],
                      "fields": {f.name: _json(v) for f, v in zip(plain, row[1:split], strict=True)},
                      "fk": {f.name: v for f, v in zip(related, row[split:], strict=True)}}
            if m2m:
                record["m2m"] = {name: references[name].get(row[0], []) for name in m2m}
            yield record


def _references(field, pks: list[int]) -> dict[int, list[int]]:
    """The ids a many-to-many field holds for each of `pks`, read from its through table."""
    through = field.remote_field.through
    source, target = f"{field.m2m_field_name()}_id", f"{field.m2m_reverse_field_name()}_id"
    found: dict[int, list[int]] = {}
    for pk, other in through.objects.filter(**{f"{source}__in": pks}).order_by(source, target) \
            .values_list(source, target):
        found.setdefault(pk, []).append(other)
    return found


def _rows(study) -> Iterator[dict]:
    sources = Source.objects.filter(issues__studies=study).distinct()
    samples = ScreeningSample.objects.filter(source__in=sources, kind=ScreeningSample.Kind.STRATUM)
    # Every user a restored row points at.
    user_ids = {study.created_by_id} | set(study.memberships.values_list("user_id", flat=True))
    for sample in samples:
        user_ids |= {sample.reviewer_a_id, sample.reviewer_b_id, sample.tiebreaker_id, sample.created_by_id,
                     sample.decided_by_id}
    for query, column in (
        (Label.history.filter(study_id=study.pk), "history_user_id"),
        (FinalLabel.history.filter(study_id=study.pk), "history_user_id"),
        (FinalLabel.objects.filter(study=study), "decided_by_id"),
        (Label.objects.filter(study=study), "annotator_id"),
        (Comment.objects.filter(study=study), "author_id"),
        (Proposal.objects.filter(study=study), "proposer_id"),
        (Vote.objects.filter(proposal__study=study), "voter_id"),
        (ChangeLogEntry.objects.filter(codebook=study.codebook_id), "made_by_id"),
        (Detail.objects.filter(category__codebook=study.codebook_id), "added_by_id"),
        (AgreementSnapshot.objects.filter(study=study), "computed_by_id"),
        (ScreeningVote.objects.filter(item__sample__in=samples), "reviewer_id"),
        (SummaryReview.objects.filter(summary__issue__source__in=sources), "reviewer_id"),
        (InterviewSession.objects.filter(participant__study=study), "interviewer_id"),
        (MachineRater.objects.filter(study=study), "created_by_id"),
        (MachineRun.objects.filter(rater__study=study), "created_by_id"),
        (ReplacementDecision.objects.filter(rater__study=study), "decided_by_id"),
        (ReplacementDecision.objects.filter(rater__study=study), "withdrawn_by_id"),
    ):
        user_ids |= set(query.order_by().values_list(column, flat=True).distinct())
    user_ids.discard(None)
    for user in get_user_model().objects.filter(pk__in=user_ids).order_by("pk"):
        yield {"kind": "auth.user", "pk": user.pk, "fields": {"username": user.username, "is_active": user.is_active,
                                                              "first_name": user.first_name,
                                                              "last_name": user.last_name}, "fk": {}}
    lists = KeywordList.objects.filter(sources__in=sources).distinct()
    yield from _records(lists)
    yield from _records(Keyword.objects.filter(keyword_list__in=lists))
    yield from _records(sources)
    study_issue_ids = set(study.issues.values_list("pk", flat=True))
    # Every issue of the study's sources: the keyword filter's figures (Table 1) are source-level. Issues outside
    # the study travel without their text.
    for record in _records(Issue.objects.filter(source__in=sources), m2m=("matched_keywords",)):
        if record["pk"] not in study_issue_ids:
            record["fields"].update(body="", comments=[], payload={})
        yield record
    yield from _records(Summary.objects.filter(issue__source__in=sources))
    yield from _records(SummaryReview.objects.filter(summary__issue__source__in=sources).order_by("pk"))
    yield from _records(samples)
    yield from _records(ScreeningItem.objects.filter(sample__in=samples))
    yield from _records(ScreeningVote.objects.filter(item__sample__in=samples))
    codebook = study.codebook
    yield from _records(Codebook.objects.filter(pk=codebook.pk))
    # Types, then themes, then sub-themes: a category's parent is restored before it.
    levels = {"type": 0, "theme": 1, "sub_theme": 2}
    categories = _records(codebook.categories.all(), m2m=("examples",))
    yield from sorted(categories, key=lambda r: (levels[r["fields"]["level"]], r["pk"]))
    # Whether members must sign in through a provider is the installation's policy, not the study's data.
    for record in _records(Study.objects.filter(pk=study.pk), skip=("current_round", "sso_required"), m2m=("issues",)):
        yield record | {"current_round": study.current_round_id}
    for model, query in (
        (Membership, {"study": study}), (Round, {"study": study}), (Queue, {"round__study": study}),
        (Assignment, {"queue__round__study": study}), (TiedReport, {"round__study": study}),
        (Label, {"study": study}), (FinalLabel, {"study": study}), (Comment, {"study": study}),
        (QueueWeight, {"study": study}), (Seat, {"study": study}), (SeatLabel, {"seat__study": study}),
    ):
        yield from _records(model.objects.filter(**query).order_by("pk"))
    for model in (Label, FinalLabel):
        yield from _records(model.history.model.objects.filter(study_id=study.pk).order_by("history_id"))
    # Interviews come before proposals and changes, which may cite a quote as their evidence.
    guides = InterviewGuide.objects.filter(study=study)
    yield from _records(guides.order_by("pk"))
    yield from _records(GuideQuestion.objects.filter(guide__in=guides).order_by("pk"))
    yield from _records(Participant.objects.filter(study=study).order_by("pk"))
    sessions = InterviewSession.objects.filter(participant__study=study)
    yield from _records(sessions.order_by("pk"))
    yield from _records(Answer.objects.filter(session__in=sessions).order_by("pk"))
    yield from _records(Quote.objects.filter(session__in=sessions).order_by("pk"), m2m=("nodes",))
    yield from _records(Proposal.objects.filter(study=study).order_by("pk"), m2m=("examples",))
    yield from _records(Vote.objects.filter(proposal__study=study))
    yield from _records(ChangeLogEntry.objects.filter(codebook=codebook))
    yield from _records(Detail.objects.filter(category__codebook=codebook), m2m=("examples",))
    yield from _records(AgreementSnapshot.objects.filter(study=study))
    yield from _records(Subset.objects.filter(study=study), m2m=("issues",))
    yield from _records(ComparisonRecord.objects.filter(study=study))
    # Machine raters: a label may point at the call it came from, so calls come before labels.
    yield from _records(MachineRater.objects.filter(study=study).order_by("pk"), skip=("api_key",))
    # Which worker ran it names a host of this installation, not a fact of the study.
    yield from _records(MachineRun.objects.filter(rater__study=study).order_by("pk"), skip=("worker",))
    yield from _records(LlmCall.objects.filter(rater__study=study).order_by("pk"))
    yield from _records(MachineLabel.objects.filter(run__rater__study=study).order_by("pk"))
    yield from _records(ReplacementDecision.objects.filter(rater__study=study).order_by("pk"))


def export_study(study, path: str | Path) -> int:
    count = 0
    # zlib's own default level: half the time of gzip's 9 for a file 1-2 % larger.
    with gzip.open(path, "wt", encoding="utf-8", compresslevel=6) as f:
        f.write(json.dumps({"format": FORMAT, "version": VERSION, "study": study.name,
                            "exported_at": timezone.now().isoformat()}) + "\n")
        for record in _rows(study):
            f.write(json.dumps(record, ensure_ascii=False) + "\n")
            count += 1
        f.write(json.dumps({"kind": "end", "records": count}) + "\n")
    audit("backup written", None, study, records=count, file=Path(path).name)
    return count


class _Restore:
    """Rows arrive parents first; `ids` maps a model label, then an id in the file, to the new id. Rows of one kind
    are written in batches, with their own timestamps (auto_now is switched off for the duration)."""

    BATCH = 2000

    def __init__(self, name: str):
        self.name = name
        # One map per kind, of whole numbers only: Python's garbage collector leaves such a dict alone, where a map
        # keyed by (kind, id) tuples was walked whole by every full collection, and these hold every row restored
        # (16 million at a million reports).
        self.ids: defaultdict[str, dict[int, int]] = defaultdict(dict)
        self.pending: list[tuple[models.Model, dict, int]] = []
        self.current_round: int | None = None
        self.skipped_sources: set[int] = set()
        self.known_issues: dict[int, dict[str, int]] = {}
        self.fresh: set[int] = set()  # issues created by this restore: nothing of theirs is here yet
        # Records not restored because they would add to rows other studies use (a summary of an issue, a keyword
        # of a list, a sample of a source or keyword that was here already), and so the records that hang on them.
        self.dropped: set[tuple[str, int]] = set()
        self.reused: set[tuple[str, int]] = set()  # (kind, id here) of rows that were here already
        self.study = None
        self.new_users: list[str] = []
        self.warnings: list[str] = []

    def new_id(self, model_label: str, old: int | None, line: int, field: str) -> int | None:
        if old is None:
            return None
        if old not in self.ids[model_label] and self.pending and \
                type(self.pending[0][0])._meta.label_lower == model_label:
            self.flush()  # a parent of the same kind (a theme's type) still waiting in the batch
        try:
            return self.ids[model_label][old]
        except KeyError as exc:
            raise StudyImportError(f"{self.name}: line {line}: {field} refers to a {model_label} the file does not "
                                   "hold before it") from exc

    def build(self, model, record: dict, line: int):
        values = {}
        for name, value in record["fields"].items():
            field = model._meta.get_field(name)
            values[field.attname] = self.value(field, value, line, model._meta.label_lower)
        for name, old in record["fk"].items():
            field = model._meta.get_field(name)
            values[field.attname] = self.new_id(field.related_model._meta.label_lower, old, line, name)
        if model._meta.label_lower == "machines.machinerater":
            # The same limits as the form (runs per report, folds, the endpoint's address), on what a file says.
            try:
                values["settings"] = checked_settings(values.get("kind", ""), values.get("settings"), restored=True)
            except FieldError as exc:
                raise StudyImportError(f"{self.name}: line {line}: machines.machinerater field 'settings': {exc}") \
                    from None
        if model._meta.label_lower.startswith("annotation.historical"):
            # A history row's "id" is the id of the row it is a version of.
            original = model._meta.label_lower.replace("historical", "")
            values["id"] = self.new_id(original, values["id"], line, "id")
        return model(**values)

    def value(self, field, value, line: int, kind: str):
        """One field's value, checked as a form would check it: type, length, choices, range, no NUL, no lone
        surrogate, no nesting deeper than a record needs, a date within the years a report can have."""
        where = f"{self.name}: line {line}: {kind} field '{field.name}'"
        if problem := _value_problem(value):
            raise StudyImportError(f"{where}: {problem}")
        limit = TEXT_LIMITS.get(f"{kind}.{field.name}", TEXT_LIMIT)
        if isinstance(field, models.TextField) and isinstance(value, str) and len(value) > limit:
            raise StudyImportError(f"{where}: {len(value):,} characters long (at most {limit:,}, as its form takes)")
        if value is None:
            if not field.null:
                raise StudyImportError(f"{where}: may not be empty (null)")
            return None
        if kind == "ingest.issue" and field.name == "url" and value and not web_url(value):
            # As at import: a link that is not http(s) is dropped, the report keeps its number.
            self.warnings.append(f"{where}: not an http(s) link, dropped")
            return ""
        value = _as_field_takes(field, value, where)
        if isinstance(value, dt.date) and not YEARS[0] <= value.year <= YEARS[1]:
            raise StudyImportError(f"{where}: {value.isoformat()} is not between {YEARS[0]} and {YEARS[1]}")
        return value

    def add(self, model, instance, record: dict, line: int) -> None:
        if self.pending and type(self.pending[0][0]) is not model:
            self.flush()
        self.pending.append((instance, record, line))
        if len(self.pending) >= self.BATCH:
            self.flush()

    def flush(self) -> None:
        if not self.pending:
            return
        model = type(self.pending[0][0])
        label = model._meta.label_lower
        made = [instance for instance, _, _ in self.pending]
        try:
            with transaction.atomic():
                copy_insert.insert(model, made)
        except (DatabaseError, psycopg.Error) as exc:  # COPY's errors come from psycopg itself
            first, last = self.pending[0][2], self.pending[-1][2]
            reason = str(exc).strip().splitlines()[0]
            raise StudyImportError(f"{self.name}: lines {first}-{last}: these {label} records break a rule of "
                                   f"the database ({reason})") from exc
        ids = self.ids[label]
        for instance, (_, record, _) in zip(made, self.pending, strict=True):
            ids[record["pk"]] = instance.pk
            if label == "ingest.issue":
                self.known_issues.setdefault(instance.source_id, {})[instance.number] = instance.pk
                self.fresh.add(instance.pk)
        # Each many-to-many relation of the whole batch in one insert, not one per row.
        links: dict[str, list] = {}
        for instance, (_, record, _line) in zip(made, self.pending, strict=True):
            for name, olds in record.get("m2m", {}).items():
                field = model._meta.get_field(name)
                target = field.related_model._meta.label_lower
                through = field.remote_field.through
                source_col, target_col = field.m2m_field_name(), field.m2m_reverse_field_name()
                targets = self.ids[target]
                links.setdefault(name, []).extend(
                    through(**{f"{source_col}_id": instance.pk, f"{target_col}_id": targets[old]})
                    for old in olds if old in targets)
        for name, rows in links.items():
            model._meta.get_field(name).remote_field.through.objects.bulk_create(rows, ignore_conflicts=True)
        if label == "annotation.study":
            self.study = made[0]
        self.pending = []

    def existing(self, model, instance):
        """A row already here to reuse instead of a new one (sources, issues, keyword lists and keywords,
        summaries), or None."""
        label = model._meta.label_lower
        if label == "ingest.issue":
            if instance.source_id not in self.known_issues:
                self.known_issues[instance.source_id] = dict(
                    model.objects.filter(source_id=instance.source_id).values_list("number", "pk"))
            pk = self.known_issues[instance.source_id].get(instance.number)
            return model(pk=pk) if pk else None
        keys = {"ingest.source": ("platform", "full_name"), "ingest.keywordlist": ("name",),
                "ingest.keyword": ("keyword_list_id", "term")}.get(label)
        if label == "ingest.summary" and instance.issue_id in self.fresh:
            return None
        if label == "ingest.summary":
            keys = ("issue_id", "backend", "model", "prompt_version")
        if label == "ingest.summaryreview":
            keys = ("summary_id", "reviewer_id")  # a reused summary may have been judged by the same person
        if keys is None:
            return None
        return model.objects.filter(**{k: getattr(instance, k) for k in keys}).first()


class _Timestamps:
    """Switch auto_now and auto_now_add off while restoring, so rows keep the times they were made at."""

    def __enter__(self):
        self.fields = [f for m in apps.get_models() for f in m._meta.concrete_fields
                       if getattr(f, "auto_now", False) or getattr(f, "auto_now_add", False)]
        self.saved = [(f, f.auto_now, f.auto_now_add) for f in self.fields]
        for field in self.fields:
            field.auto_now = field.auto_now_add = False
        return self

    def __exit__(self, *exc):
        for field, now, now_add in self.saved:
            field.auto_now, field.auto_now_add = now, now_add


def _read(path: Path) -> Iterator[tuple[int, dict]]:
    try:
        with gzip.open(path, "rt", encoding="utf-8") as f:
            # A line is read up to a bound, so a record cannot take the server's memory with it.
            for number, line in enumerate(iter(lambda: f.readline(LINE_LIMIT + 1), ""), start=1):
                if len(line) > LINE_LIMIT:
                    raise StudyImportError(f"{path.name}: line {number}: longer than {LINE_LIMIT:,} characters, "
                                           "more than any Concord record")
                try:
                    yield number, json.loads(line)
                except json.JSONDecodeError as exc:
                    raise StudyImportError(f"{path.name}: line {number}: not JSON ({exc.msg}); the file is "
                                           "damaged") from exc
                except RecursionError as exc:
                    raise StudyImportError(f"{path.name}: line {number}: nested too deeply to be a Concord "
                                           "record") from exc
    except (OSError, EOFError, gzip.BadGzipFile, UnicodeDecodeError) as exc:
        raise StudyImportError(f"{path.name}: not a readable Concord study backup ({exc})") from exc


class Restored(NamedTuple):
    study: object
    records: int
    new_users: list[str]  # accounts this restore created, with no password: invite them
    warnings: list[str]


def import_study(path: str | Path) -> Restored:
    """Restore a study. Any fault rolls everything back."""
    with _Timestamps(), transaction.atomic():
        return _import(Path(path))


def _header(path: Path, first) -> tuple[int, str]:
    """The backup's format version and the name of its study, from line 1."""
    header = first[1] if first else {}
    if not isinstance(header, dict) or header.get("format") != FORMAT:
        raise StudyImportError(f"{path.name}: line 1: not a Concord study backup (no \"{FORMAT}\" header)")
    version = header.get("version")
    if not isinstance(version, int) or isinstance(version, bool) or version not in FORMATS:
        raise StudyImportError(f"{path.name}: line 1: format version {version!r} is not one this Concord reads "
                               f"(it reads version {', '.join(map(str, FORMATS))})")
    name = header.get("study")
    if not isinstance(name, str):
        raise StudyImportError(f"{path.name}: line 1: the header names no study")
    if Study.objects.filter(name=name).exists():
        raise StudyImportError(f"{path.name}: a study named {name!r} exists already here")
    return version, name


def _import(path: Path) -> Restored:
    if not path.exists():
        raise StudyImportError(f"{path}: no such file")
    rows = _read(path)
    version, name = _header(path, next(rows, None))
    restore = _Restore(path.name)
    count, ended = 0, False
    for line, record in rows:
        if ended:
            raise StudyImportError(f"{path.name}: line {line}: data after the end record")
        if isinstance(record, dict) and record.get("kind") == "end":
            restore.flush()
            if record.get("records") != count:
                raise StudyImportError(f"{path.name}: line {line}: the file says {record.get('records')} records, "
                                       f"{count} were read")
            ended = True
            continue
        kind = _checked_shape(record, FORMATS[version], path.name, line, version)
        count += 1
        if renamed := REFERENCES_RENAMED[version]:
            record["fk"] = {renamed.get(name, name): old for name, old in record["fk"].items()}
        _restore_record(restore, RENAMED[version].get(kind, kind), record, line)
    if not ended:
        raise StudyImportError(f"{path.name}: the file ends before its end record; it is truncated")
    study = restore.study
    if study is None:
        raise StudyImportError(f"{path.name}: the file holds no study")
    if study.name != name:
        raise StudyImportError(f"{path.name}: the header names study {name!r}, its study record {study.name!r}")
    if restore.current_round:
        study.current_round_id = restore.ids["annotation.round"].get(restore.current_round)
        study.save(update_fields=["current_round"])
    audit("backup restored", None, study, records=count, file=path.name, warnings=len(restore.warnings))
    return Restored(study, count, restore.new_users, restore.warnings)


def _restore_record(restore: _Restore, kind: str, record: dict, line: int) -> None:
    """One record: a new row, or an existing one reused (a shared source, user or codebook), or dropped with a
    warning when it would add to what another study shares or hangs on something dropped."""
    if kind == "auth.user":
        restore.flush()
        restore.ids[kind][record["pk"]] = _user(restore, record["fields"], line)
        return
    model = apps.get_model(kind)
    if restore.pending and type(restore.pending[0][0])._meta.label_lower != kind:
        restore.flush()  # the rows before may be the parents this one refers to
    if _hangs_on_dropped(restore, model, record):
        restore.dropped.add((kind, record["pk"]))
        return
    try:
        instance = restore.build(model, record, line)
    except StudyImportError:
        raise
    except (KeyError, ValueError, TypeError, LookupError, AttributeError) as exc:
        raise StudyImportError(f"{restore.name}: line {line}: a {kind} record is damaged ({exc})") from exc
    found = restore.existing(model, instance)
    if found is not None:
        if kind == "ingest.source":
            restore.skipped_sources.add(found.pk)
        restore.ids[kind][record["pk"]] = found.pk
        restore.reused.add((kind, found.pk))
        return
    if why := _adds_to_shared(restore, kind, instance):
        restore.dropped.add((kind, record["pk"]))
        restore.warnings.append(f"{restore.name}: line {line}: {kind} not restored: {why}")
        return
    if kind == "taxonomy.codebook":
        instance.version = free_version(instance.name, instance.version, mark="restored ")
    if kind == "annotation.study":
        restore.current_round = record.get("current_round")
    restore.add(model, instance, record, line)


def _is_id(value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


# What a restore takes: text no longer than its form takes (a 150 MB note held a gigabyte), JSON no deeper than
# a platform's answer is, dates within the years a report or a label can have.
TEXT_LIMIT = 1_000_000
TEXT_LIMITS = {"annotation.label.note": 5000, "annotation.historicallabel.note": 5000,
               "annotation.comment.body": 10_000}
DEPTH_LIMIT = 64
YEARS = (1900, 2100)
LINE_LIMIT = 32_000_000  # characters of one record: an issue with thousands of comments fits


def _value_problem(value, depth: int = 0) -> str | None:
    """What makes a value unstorable: NUL, a lone surrogate, nesting deeper than DEPTH_LIMIT."""
    if isinstance(value, str):
        return text_problem(value)
    if depth >= DEPTH_LIMIT and isinstance(value, dict | list):
        return f"nested more than {DEPTH_LIMIT} deep"
    if isinstance(value, dict):
        return next((p for k, v in value.items() if (p := _value_problem(k, depth + 1) or
                                                    _value_problem(v, depth + 1))), None)
    if isinstance(value, list):
        return next((p for v in value if (p := _value_problem(v, depth + 1))), None)
    return None


def _checked_shape(record, kinds: dict[str, Kind], name: str, line: int, version: int) -> str:
    """The record's kind, once its shape is one the format lists: known kind, known keys, known fields,
    ids that are whole numbers. Refused with its line otherwise."""
    where = f"{name}: line {line}"
    if not isinstance(record, dict):
        raise StudyImportError(f"{where}: a record must be a JSON object")
    kind = record.get("kind")
    spec = kinds.get(kind) if isinstance(kind, str) else None
    if spec is None:
        raise StudyImportError(f"{where}: record kind {kind!r} is not part of the {FORMAT} format, version "
                               f"{version}")
    allowed_keys = RECORD_KEYS | ({"current_round"} if kind == "annotation.study" else set())
    if extra := sorted(set(record) - allowed_keys):
        raise StudyImportError(f"{where}: a {kind} record has no key {extra[0]!r}")
    if not _is_id(record.get("pk")):
        raise StudyImportError(f"{where}: a {kind} record's pk must be a whole number")
    if "current_round" in record and record["current_round"] is not None and not _is_id(record["current_round"]):
        raise StudyImportError(f"{where}: current_round must be a whole number")
    for part, names in (("fields", spec.fields), ("fk", spec.fk), ("m2m", spec.m2m)):
        _check_part(record.get(part, {}), part, names, kind, where, version)
    record.setdefault("fields", {})
    record.setdefault("fk", {})
    return kind


def _check_part(values, part: str, names: tuple[str, ...], kind: str, where: str, version: int) -> None:
    """A record's fields, references or lists of references: an object of names the format lists, and
    references that are whole numbers."""
    if not isinstance(values, dict):
        raise StudyImportError(f"{where}: a {kind} record's {part!r} must be an object")
    if unknown := sorted(set(values) - set(names)):
        raise StudyImportError(f"{where}: field {unknown[0]!r} is not part of a {kind} record in the "
                               f"{FORMAT} format, version {version}")
    if part == "fk" and any(v is not None and not _is_id(v) for v in values.values()):
        raise StudyImportError(f"{where}: a {kind} record's references must be whole numbers")
    if part == "m2m" and any(not isinstance(v, list) or not all(_is_id(i) for i in v) for v in values.values()):
        raise StudyImportError(f"{where}: a {kind} record's lists of references must hold whole numbers")


def _user(restore: _Restore, fields: dict, line: int) -> int:
    """The id of the user a backup names: the one here with that username, or a new account with an unusable
    password and no rights (never staff, superuser, groups or permissions, whatever the file says)."""
    User = get_user_model()
    values = {f: restore.value(User._meta.get_field(f), fields.get(f, ""), line, "auth.user")
              for f in ("username", "first_name", "last_name")}
    if not values["username"]:
        raise StudyImportError(f"{restore.name}: line {line}: auth.user field 'username' is empty")
    user = User.objects.filter(username=values["username"]).first()
    if user is None:
        user = User(**values, is_active=fields.get("is_active") is not False)
        user.set_unusable_password()  # a restored member sets a password through an invitation link
        user.save()
        restore.new_users.append(user.username)
    return user.pk


def _hangs_on_dropped(restore: _Restore, model, record: dict) -> bool:
    """Whether the record refers to one that was not restored (and so is not restored either)."""
    for name, old in record["fk"].items():
        target = model._meta.get_field(name).related_model._meta.label_lower
        if (target, old) in restore.dropped:
            return True
    return False


def _adds_to_shared(restore: _Restore, kind: str, instance) -> str:
    """Why a new row would change what other studies show, count or use ("" when it would not): a restore
    creates rows of its own study, it never adds to rows that were here before it."""
    if kind == "ingest.summary" and instance.issue_id not in restore.fresh:
        return ("the issue was here already, and a summary added to it would become the one other studies show "
                "(its own summaries are kept)")
    if kind == "ingest.keyword" and ("ingest.keywordlist", instance.keyword_list_id) in restore.reused:
        return "the keyword list was here already; a keyword is added to it on its own page, not by a restore"
    if kind == "ingest.screeningsample" and (instance.source_id in restore.skipped_sources or
                                            ("ingest.keyword", instance.keyword_id) in restore.reused):
        return "the source or keyword was here already, with its own screening"
    return ""

