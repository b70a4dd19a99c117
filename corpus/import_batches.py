"""An imported label file written a batch of rows at a time, holding the same whatever the file's length.

What the import must remember from one batch to the next — which (report, annotator) pairs the file has labeled
already, which reports have had their final label, which reports it labels twice — is kept as bits indexed by the
reports' ids (one bit a report per annotator: 125 kB an annotator at a million reports), not as sets of keys; each
batch's rows go to the database as soon as it is read, inside the import's one transaction, so that a fault on
any line still leaves nothing imported. Reading the whole file first held every row as Python objects: 3.3 GB at a
million reports.
"""
from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field

from django.contrib.auth import get_user_model
from django.db.models import Max
from django.utils import timezone

from annotation import sql
from annotation.models import FinalLabel, Label, Membership, Round, Study
from ingest.models import Issue, Source

User = get_user_model()
SHOWN_DOUBLED = 10


@dataclass
class ImportSummary:
    """What an import did, counted by the writer as it goes."""
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


class LabelConflict(ValueError):
    """The file gives an annotator a label other than the one they already have: labels are never overwritten."""

    def __init__(self, annotator: str, report: tuple, round: Round) -> None:
        super().__init__(f"{annotator} already has a different label for {report[1]}#{report[2]} in round "
                         f"{round.number}; labels are never overwritten by an import, so nothing was imported")


class Bits:
    """A set of non-negative integers (ids) as a bit array."""

    def __init__(self) -> None:
        self.data = bytearray()
        self.count = 0

    def add(self, number: int) -> bool:
        """True when `number` was not in the set."""
        byte, bit = divmod(number, 8)
        if byte >= len(self.data):
            self.data.extend(bytes(byte + 1 - len(self.data) + len(self.data) // 2))
        mask = 1 << bit
        if self.data[byte] & mask:
            return False
        self.data[byte] |= mask
        self.count += 1
        return True


class Doubled:
    """Reports the file labels twice by the same annotator: how many, the first few by name, and the rows."""

    def __init__(self) -> None:
        self.reports, self.first, self.rows = Bits(), [], 0

    def note(self, issue_id: int, report: tuple) -> None:
        self.rows += 1
        if self.reports.add(issue_id) and len(self.first) < SHOWN_DOUBLED:
            self.first.append(f"{report[1]}#{report[2]}")

    @property
    def count(self) -> int:
        return self.reports.count


class Writer:
    """Writes batches into `summary.study`'s `round`, counting what it did in `summary`."""

    def __init__(self, summary: ImportSummary, round: Round, prefix: str) -> None:
        self.summary, self.study, self.round, self.prefix = summary, summary.study, round, prefix
        self.doubled = Doubled()
        self._sources: dict[tuple[str, str], Source] = {}
        self._annotators: dict[str, int] = {}
        self._seen: dict[int, Bits] = defaultdict(Bits)
        self._finals_seen = Bits()
        self._label_before = Label.objects.aggregate(top=Max("pk"))["top"] or 0
        self._final_before = FinalLabel.objects.aggregate(top=Max("pk"))["top"] or 0
        self._had_labels = Label.objects.filter(round=round).exists()
        self._had_finals = FinalLabel.objects.filter(study=self.study).exists()

    def write(self, labels: list[tuple], finals: list[tuple]) -> None:
        """One batch: labels as (report key, annotator, chain, note), finals as (report key, chain)."""
        self.summary.rows += len(labels)
        ids = self._report_ids({r[0] for r in labels} | {f[0] for f in finals})
        self.study.issues.add(*set(ids.values()))
        annotators = self._annotator_ids({r[1] for r in labels})
        self._write_labels(labels, ids, annotators)
        self._write_finals(finals, ids)

    def finish(self, reason: str) -> None:
        """The history rows of everything written."""
        sql.record_history_of_new_rows(Label, "round", self.round.pk, self._label_before, reason)
        sql.record_history_of_new_rows(FinalLabel, "study", self.study.pk, self._final_before,
                                       "imported final label")
        self.summary.duplicates_skipped = self.doubled.rows
        self.summary.annotators_created.sort()

    def _write_labels(self, labels: list[tuple], ids: dict[tuple, int], annotators: dict[str, int]) -> None:
        existing = {}
        if self._had_labels:
            existing = {(i, a): rest for i, a, *rest in Label.objects.filter(
                round=self.round, pk__lte=self._label_before, issue_id__in={ids[r[0]] for r in labels},
            ).values_list("issue_id", "annotator_id", "is_relevant", "type_id", "theme_id", "sub_theme_id", "note")}
        new = []
        for report, annotator, chain, note in labels:
            issue_id, annotator_id = ids[report], annotators[annotator]
            if not self._seen[annotator_id].add(issue_id):
                self.doubled.note(issue_id, report)
                continue
            values = [chain.is_relevant, chain.type_id, chain.theme_id, chain.sub_theme_id, note]
            if (issue_id, annotator_id) in existing:
                if existing[issue_id, annotator_id] != values:
                    raise LabelConflict(annotator, report, self.round)
                self.summary.labels_unchanged += 1
                continue
            new.append((issue_id, annotator_id, chain, note))
        now = timezone.now()
        sql.insert_rows(Label, ["study_id", "round_id", "issue_id", "annotator_id", "is_relevant", "type_id",
                                "theme_id", "sub_theme_id", "note", "created_at", "updated_at"],
                        ((self.study.pk, self.round.pk, issue_id, annotator_id, c.is_relevant, c.type_id,
                          c.theme_id, c.sub_theme_id, note, now, now) for issue_id, annotator_id, c, note in new))
        self.summary.labels_new += len(new)

    def _write_finals(self, finals: list[tuple], ids: dict[tuple, int]) -> None:
        if not finals:
            return
        existing = set()
        if self._had_finals:
            existing = set(FinalLabel.objects.filter(study=self.study, pk__lte=self._final_before,
                                                     issue_id__in={ids[f[0]] for f in finals})
                           .values_list("issue_id", flat=True))
        # The first final label a report is given in the file is the one kept.
        new = [(ids[report], chain) for report, chain in finals
               if self._finals_seen.add(ids[report]) and ids[report] not in existing]
        now = timezone.now()
        sql.insert_rows(FinalLabel, ["study_id", "issue_id", "is_relevant", "type_id", "theme_id", "sub_theme_id",
                                     "method", "rationale", "decided_at"],
                        ((self.study.pk, issue_id, c.is_relevant, c.type_id, c.theme_id, c.sub_theme_id,
                          FinalLabel.Method.IMPORTED, "", now) for issue_id, c in new))
        self.summary.decisions += len(new)

    def _report_ids(self, keys: set[tuple]) -> dict[tuple, int]:
        """Issue ids for the batch's report keys; missing reports are created with their URL only."""
        numbers: dict[tuple[str, str], set[str]] = defaultdict(set)
        for platform, full_name, number in keys:
            numbers[platform, full_name].add(number)
        ids: dict[tuple, int] = {}
        for (platform, full_name), wanted in numbers.items():
            source = self._sources.get((platform, full_name))
            if source is None:
                source = Source.objects.get_or_create(platform=platform, full_name=full_name)[0]
                self._sources[platform, full_name] = source
            found = dict(Issue.objects.filter(source=source, number__in=wanted).values_list("number", "pk"))
            host = "gitee.com" if platform == Source.Platform.GITEE else "github.com"
            missing = [Issue(source=source, number=number, title="",
                             url=f"https://{host}/{full_name}/issues/{number}"
                             if platform != Source.Platform.FILE else "")
                       for number in wanted if number not in found]
            for issue in Issue.objects.bulk_create(missing, batch_size=5000):
                found[issue.number] = issue.pk
            self.summary.reports_created += len(missing)
            ids.update({(platform, full_name, number): pk for number, pk in found.items()})
        return ids

    def _annotator_ids(self, names: set[str]) -> dict[str, int]:
        wanted = {f"{self.prefix}{n}": n for n in names if n not in self._annotators}
        if wanted:
            found = dict(User.objects.filter(username__in=wanted).values_list("username", "pk"))
            for username in sorted(wanted):
                if username not in found:
                    # Raters of record: they exist to own their labels and cannot log in.
                    user = User(username=username, is_active=False)
                    user.set_unusable_password()
                    user.save()
                    found[username] = user.pk
                    self.summary.annotators_created.append(username)
            Membership.objects.bulk_create([Membership(study=self.study, user_id=found[u]) for u in wanted],
                                           ignore_conflicts=True)
            self._annotators.update({name: found[username] for username, name in wanted.items()})
        return self._annotators
