"""The corpus as JSON Lines composed by PostgreSQL, on PostgreSQL.

Built in Python (corpus.exports.records, which SQLite uses), each report is a dict of model values and a JSON
document dumped again: 3.5 to 4 times what the database alone needs to deliver the same rows. Here each chunk of
reports is one query whose rows are the records' JSON text, in two halves; Python only puts between them what
lives outside the tables' plain columns (the screening verdict, derived from the source's decisions) and after
them the machine raters' labels, as the CSV's COPY does through a temporary table. A plain query, not COPY into
a temporary table, so that the export can read from a replica, where nothing can be created.

The records are those of corpus.exports.records, key for key and value for value — tests/corpus/test_copy_export.py
reads both and compares them — written with PostgreSQL's `"key" : value` for Python's `"key": value`.
"""
from __future__ import annotations

import json
from collections.abc import Iterator

from django.contrib.auth import get_user_model
from django.db import connections, router
from psycopg import sql

from annotation.models import NOT_RELEVANT, FinalLabel, Label, Round, Study
from annotation.selectors.labels import ScreeningVerdicts
from concord import rows
from ingest.models import Issue, Keyword, Source, Summary
from machines.exports import LabelsByReport
from taxonomy.models import Category

from .columns import id_chunks, study_status
from .copy_export import how_sql, iso_sql, labels_json


def _query(study: Study, status: str, codebook: str) -> str:
    study_id = int(study.pk)
    head = ", ".join([
        f"'study', {sql.quote(study.name)}", f"'study_status', {sql.quote(status)}", "'source', [[src.full_name]]",
        "'number', [[i.number]]", "'url', [[i.url]]", "'title', [[i.title]]", "'body', [[i.body]]",
        f"'created_at', CASE WHEN [[i.created_at]] IS NULL THEN '' ELSE {iso_sql('[[i.created_at]]')} END",
        "'matched_keywords', COALESCE((SELECT json_agg([[k.term]] ORDER BY [[k.term]] COLLATE \"C\") FROM [[ik]] "
        "JOIN [[k]] ON k.id = [[ik.keyword]] WHERE [[ik.issue]] = i.id), '[]'::json)",
    ])
    final = ", ".join([
        f"'type_code', CASE WHEN [[d.is_relevant]] THEN COALESCE([[ft.code]], '') ELSE {sql.quote(NOT_RELEVANT)} END",
        "'type', CASE WHEN [[d.is_relevant]] THEN COALESCE([[ft.name]], '') ELSE 'Not relevant' END",
        "'theme_code', COALESCE([[ftm.code]], '')", "'theme', COALESCE([[ftm.name]], '')",
        "'sub_theme_code', COALESCE([[fs.code]], '')", "'sub_theme', COALESCE([[fs.name]], '')",
        f"'how', {how_sql()}", "'rationale', [[d.rationale]]",
    ])
    tail = ", ".join([
        f"'summary', COALESCE((SELECT [[s.text]] FROM [[s]] WHERE [[s.issue]] = i.id AND [[s.status]] = "
        f"{sql.quote(Summary.Status.OK.value)} ORDER BY [[s.updated_at]] DESC, s.id DESC LIMIT 1), '')",
        f"'final', CASE WHEN d.id IS NULL THEN NULL ELSE json_build_object({final}) END",
        f"'codebook', {sql.quote(codebook)}", f"'labels', COALESCE(({labels_json(study_id)}), '[]'::json)",
    ])
    return rows.named(
        f"SELECT i.id, json_build_object({head})::text, json_build_object({tail})::text "
        "FROM [[i]] JOIN [[src]] ON src.id = [[i.source]] "
        f"LEFT JOIN [[d]] ON [[d.study]] = {study_id} AND [[d.issue]] = i.id "
        "LEFT JOIN [[ft]] ON ft.id = [[d.type]] LEFT JOIN [[ftm]] ON ftm.id = [[d.theme]] "
        "LEFT JOIN [[fs]] ON fs.id = [[d.sub_theme]] "
        "WHERE i.id = ANY('{ids}'::bigint[]) ORDER BY [[i.created_at]], i.id",
        i=Issue, src=Source, d=FinalLabel, ft=Category, ftm=Category, fs=Category, ik=Issue.matched_keywords.through,
        k=Keyword, s=Summary, l=Label, u=get_user_model(), r=Round, ly=Category, lh=Category, ls=Category,
    )


def _dumps(value) -> str:
    return json.dumps(value, ensure_ascii=False)


def jsonl_lines(study: Study) -> Iterator[str]:
    """The corpus's JSON Lines, a report at a time, a chunk of reports a query (see the module's note)."""
    codebook = f"{study.codebook.name} {study.codebook.version}, revision {study.codebook.revision}"
    query = _query(study, study_status(study), codebook)
    screening_of, machine_of = ScreeningVerdicts(study), LabelsByReport(study)
    for chunk in id_chunks(study):
        screening, machine = screening_of(chunk), machine_of(chunk)
        # Where the ORM reads the rest from (a replica, when the page chose one).
        with connections[router.db_for_read(Issue)].cursor() as cursor:
            # No parameters: the ids are whole numbers written into the statement, and a study's name may hold a
            # per cent sign that a parameterised statement would read as a placeholder.
            cursor.execute(query.replace("'{ids}'", "'{" + ",".join(str(int(pk)) for pk in chunk) + "}'"))
            found = cursor.fetchall()
        for issue_id, head, tail in found:
            verdict, why = screening.get(issue_id, ("undecided", "not screened"))
            yield (f'{head[:-1]}, "screening" : {_dumps(verdict)}, "screening_reason" : {_dumps(why)}, {tail[1:-1]}, '
                   f'"machine_labels" : {_dumps(machine.get(issue_id, {}))}}}\n')
