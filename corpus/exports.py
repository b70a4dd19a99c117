"""The final labeled corpus: one record per report, streamed in chunks so that memory stays flat however
large the study. CSV and JSON Lines carry the same fields; CSV puts the individual labels in one
JSON column."""
from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Iterator

from django.db import connection
from django.db.models import Prefetch
from django.utils import timezone

from agreement.reports import agreement_figures, study_agreement
from annotation.models import NOT_RELEVANT, FinalLabel, Label, Study
from annotation.selectors.final_labels import final_label_counts
from annotation.selectors.labels import ScreeningVerdicts
from annotation.selectors.seats import standing_seats
from annotation.selectors.studies import agreement_round
from concord.csv_stream import csv_lines
from ingest.models import Issue, Summary
from interviews.exports import interviews_document
from machines.exports import LabelsByReport, study_machines
from taxonomy.exports import to_json
from taxonomy.models import Category

from .columns import CSV_COLUMNS, id_chunks, study_status
from .copy_export import copy_csv
from .jsonl_export import jsonl_lines


def _names(study: Study) -> dict[int, tuple[str, str]]:
    return {pk: (code, name) for pk, code, name in Category.objects.filter(codebook=study.codebook_id)
            .values_list("pk", "code", "name")}


def records(study: Study) -> Iterator[dict]:
    """One dict per report, in report order; each chunk of reports costs a handful of queries, and nothing is
    held for the whole study but the codebook's names and each source's screening reviews."""
    names = _names(study)
    screening_of = ScreeningVerdicts(study)
    status = study_status(study)
    codebook = f"{study.codebook.name} {study.codebook.version}, revision {study.codebook.revision}"
    # Each machine rater's label of record (its most specific code), beside the people's and never in them.
    machine_of = LabelsByReport(study)
    for chunk in id_chunks(study):
        screening, machine = screening_of(chunk), machine_of(chunk)
        issues = (Issue.objects.filter(pk__in=chunk).select_related("source")
                  .prefetch_related(Prefetch("matched_keywords", to_attr="keyword_list"))
                  .order_by("created_at", "id"))
        summaries: dict[int, str] = {}
        for issue_id, text in (Summary.objects.filter(issue_id__in=chunk, status=Summary.Status.OK)
                               .order_by("issue_id", "updated_at").values_list("issue_id", "text")):
            summaries[issue_id] = text  # the newest wins
        finals = {d.issue_id: d for d in FinalLabel.objects.filter(study=study, issue_id__in=chunk)}
        labels = defaultdict(list)
        for row in (Label.objects.filter(study=study, issue_id__in=chunk).order_by("issue_id", "round__number",
                                                                                   "annotator__username")
                    .values_list("issue_id", "annotator__username", "round__number", "round__kind", "is_relevant",
                                 "type_id", "theme_id", "sub_theme_id", "note", "updated_at", "codebook_revision",
                                 "summary_shown")):
            issue_id, who, number, kind, relevant, type_id, theme_id, sub_id, note, when, revision, shown = row
            code = names[sub_id or theme_id or type_id][0] if relevant else NOT_RELEVANT
            labels[issue_id].append({"annotator": who, "round": number, "round_kind": kind, "choice": code,
                                     "note": note, "time": when.isoformat(), "codebook_revision": revision,
                                     "summary_shown": shown})
        for issue in issues:
            yield _record(study, issue, status, codebook, names, screening, summaries, finals.get(issue.pk),
                          labels[issue.pk]) | {"machine_labels": machine.get(issue.pk, {})}


def _record(study, issue, status, codebook, names, screening, summaries, final, labels) -> dict:
    verdict, why = screening.get(issue.pk, ("undecided", "not screened"))

    def chain(pk):
        return names.get(pk, ("", "")) if pk else ("", "")

    record = {
        "study": study.name, "study_status": status, "source": issue.source.full_name, "number": issue.number,
        "url": issue.url, "title": issue.title, "body": issue.body,
        "created_at": issue.created_at.isoformat() if issue.created_at else "",
        "matched_keywords": sorted(k.term for k in issue.keyword_list), "screening": verdict,
        "screening_reason": why, "summary": summaries.get(issue.pk, ""),
        "final": None, "codebook": codebook, "labels": labels,
    }
    if final is not None:
        type_, theme, sub = chain(final.type_id), chain(final.theme_id), chain(final.sub_theme_id)
        record["final"] = {
            "type_code": type_[0] if final.is_relevant else NOT_RELEVANT, "type": type_[1] if final.is_relevant
            else "Not relevant", "theme_code": theme[0], "theme": theme[1], "sub_theme_code": sub[0],
            "sub_theme": sub[1], "how": final.how, "rationale": final.rationale,
        }
    return record


def _flat(record: dict) -> list:
    final = record["final"] or {}
    return [
        record["study"], record["study_status"], record["source"], record["number"], record["url"],
        record["title"], record["body"], record["created_at"], " ".join(record["matched_keywords"]),
        record["screening"], record["screening_reason"], record["summary"],
        final.get("type_code", ""), final.get("type", ""), final.get("theme_code", ""), final.get("theme", ""),
        final.get("sub_theme_code", ""), final.get("sub_theme", ""), final.get("how", ""),
        final.get("rationale", ""), record["codebook"], json.dumps(record["labels"], ensure_ascii=False),
        json.dumps(record["machine_labels"], ensure_ascii=False),
    ]


def csv_rows(study: Study, raw: bool = False) -> Iterator[str]:
    """The corpus as CSV; formula-like cells are neutralised for spreadsheets unless `raw`."""
    return csv_lines(CSV_COLUMNS, (_flat(r) for r in records(study)), raw=raw)


def csv_chunks(study: Study, raw: bool = False) -> Iterator[bytes]:
    """The corpus CSV as bytes: written by PostgreSQL itself there (corpus.copy_export, five times faster),
    row by row elsewhere."""
    if connection.vendor == "postgresql":

        yield from copy_csv(study, raw)
        return
    for line in csv_rows(study, raw):
        yield line.encode()


def jsonl_rows(study: Study) -> Iterator[str]:
    """The corpus as JSON Lines: composed by PostgreSQL there (corpus.jsonl_export, about three times faster),
    record by record elsewhere."""
    if connection.vendor == "postgresql":
        yield from jsonl_lines(study)
        return
    for record in records(study):
        yield json.dumps(record, ensure_ascii=False) + "\n"


def study_document(study: Study, *, with_contacts: bool = False) -> dict:
    """study.json: the codebook, the members' roles, the agreement report, the machine raters (with their figures,
    call logs and decisions) and the export time."""
    members = []
    for m in study.memberships.select_related("user").order_by("role", "user__username"):
        member = {"username": m.user.username, "role": m.role, "joined": m.joined_at.isoformat()}
        if with_contacts:
            member["email"] = m.user.email
        members.append(member)
    round = agreement_round(study)
    return {
        "study": study.name, "description": study.description, "status": study_status(study),
        "phase": study.phase, "exported_at": timezone.now().isoformat(),
        "codebook": json.loads(to_json(study.codebook)),
        "members": members,
        "agreement": agreement_figures(study_agreement(round)) if round else None,
        # People's figures above; where machines stand in people's seats, the figures with them too.
        "agreement_with_machines": agreement_figures(study_agreement(round, machines=True))
        if round is not None and standing_seats(round) else None,
        "final_labels": final_label_counts(study),
        "interviews": interviews_document(study),
        "summary_experiment": study.summary_experiment,
        "machines": study_machines(study, calls=True),
    }
