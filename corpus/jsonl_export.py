"""The corpus as JSON Lines composed by PostgreSQL, on PostgreSQL.

Built in Python (corpus.exports.records, which SQLite uses), each report is a dict of model values and a JSON
document dumped again: 3.5 to 4 times what the database alone needs to deliver the same rows. Here one query
over the whole study, in the corpus's order, has the records' JSON text as its rows, in two halves; Python puts
between them only the screening verdict, made from columns the row carries (whether a keyword kept the report, its
newest summary's pre-verdict) and the source's reviews, read once.

The rows are streamed (libpq's chunked mode, CHUNK rows at a time; single-row mode where libpq is older than
17), not read a chunk of ids at a time: a query per chunk paid again, each time, for what a single query pays
once (planning and JIT compilation, a scan of the study's final labels, a sort), which made the export 1.8 times
COPY at 40,000 reports and 2.1 times at 160,000. Streaming needs no server-side cursor, so it holds behind
PgBouncer in transaction mode, and it needs no temporary table, so it reads from a replica too. While the
stream runs its connection is busy: nothing may query that connection between two lines (psycopg holds the
connection's lock until the last row), which the export command, the download and the replication package
respect — each writes the lines out and asks for nothing else until they end.

The records are those of corpus.exports.records, key for key and value for value — tests/corpus/test_copy_export.py
reads both and compares them — written with PostgreSQL's `"key" : value` for Python's `"key": value`.
"""
from __future__ import annotations

import json
from collections.abc import Iterator

import psycopg
from django.contrib.auth import get_user_model
from django.db import connections, router
from psycopg import sql

from annotation.models import NOT_RELEVANT, FinalLabel, Label, Round, Study
from annotation.selectors.labels import ScreeningVerdicts
from concord import rows
from ingest.models import Issue, Keyword, Source, Summary
from machines.models import MachineLabel
from machines.selectors import latest_run, raters_of
from taxonomy.models import Category

from . import columns
from .columns import study_status
from .copy_export import how_sql, iso_sql, labels_json

# libpq 17 can hand a query's rows over in chunks; older ones a row at a time.
CHUNKED_MODE = psycopg.pq.version() >= 170000


def _machine_json(study: Study) -> str:
    """A subquery: the report's label of record in each machine rater's finished run (its first attempt that
    parsed, its most specific code; empty when no attempt parsed), no key where the run has no label of the report
    — as machines.exports.LabelsByReport reads them, in the raters' order. The raters are rows of a VALUES list,
    not arguments of json_build_object, which takes at most 100: a study may have more than 50 raters."""
    runs = [(rater.name, latest_run(rater)) for rater in raters_of(study)]
    raters = [f"({order}, {sql.quote(name)}, {int(run.pk)})"
              for order, (name, run) in enumerate(runs) if run is not None]
    if not raters:
        return "'{}'::json"
    return (
        "COALESCE((SELECT json_object_agg(raters.name, chosen.code ORDER BY raters.position) "
        f"FROM (VALUES {', '.join(raters)}) AS raters(position, name, run) "
        "CROSS JOIN LATERAL (SELECT CASE WHEN [[m.unparseable]] OR [[m.type_code]] = '' THEN '' "
        "ELSE COALESCE(NULLIF([[m.sub_theme_code]], ''), NULLIF([[m.theme_code]], ''), [[m.type_code]]) END AS code "
        "FROM [[m]] WHERE [[m.run]] = raters.run AND [[m.issue]] = i.id "
        "ORDER BY [[m.unparseable]] OR [[m.type_code]] = '', [[m.attempt]] LIMIT 1) AS chosen), '{}'::json)")


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
        "'summary', COALESCE(newest.text, '')",
        f"'final', CASE WHEN d.id IS NULL THEN NULL ELSE json_build_object({final}) END",
        f"'codebook', {sql.quote(codebook)}", f"'labels', COALESCE(({labels_json(study_id)}), '[]'::json)",
        f"'machine_labels', {_machine_json(study)}",
    ])
    return rows.named(
        "SELECT i.id, [[i.source]], [[i.kept]], newest.verdict, "
        f"json_build_object({head})::text, json_build_object({tail})::text "
        "FROM [[si]] JOIN [[i]] ON i.id = [[si.issue]] JOIN [[src]] ON src.id = [[i.source]] "
        # The newest summary that succeeded: its text is the record's, its pre-verdict decides the screening.
        f"LEFT JOIN LATERAL (SELECT [[s.text]] AS text, [[s.verdict]] AS verdict FROM [[s]] "
        f"WHERE [[s.issue]] = i.id AND [[s.status]] = {sql.quote(Summary.Status.OK.value)} "
        "ORDER BY [[s.updated_at]] DESC, s.id DESC LIMIT 1) newest ON true "
        f"LEFT JOIN [[d]] ON [[d.study]] = {study_id} AND [[d.issue]] = i.id "
        "LEFT JOIN [[ft]] ON ft.id = [[d.type]] LEFT JOIN [[ftm]] ON ftm.id = [[d.theme]] "
        "LEFT JOIN [[fs]] ON fs.id = [[d.sub_theme]] "
        f"WHERE [[si.study]] = {study_id} ORDER BY [[i.created_at]], i.id",
        si=Study.issues.through, i=Issue, src=Source, d=FinalLabel, ft=Category, ftm=Category, fs=Category,
        ik=Issue.matched_keywords.through, k=Keyword, s=Summary, l=Label, u=get_user_model(), r=Round,
        ly=Category, lh=Category, ls=Category, m=MachineLabel,
    )


def _dumps(value) -> str:
    return json.dumps(value, ensure_ascii=False)


def jsonl_lines(study: Study) -> Iterator[str]:
    """The corpus's JSON Lines, a report at a time, from one streamed query (see the module's note)."""
    codebook = f"{study.codebook.name} {study.codebook.version}, revision {study.codebook.revision}"
    query = _query(study, study_status(study), codebook)
    screening = ScreeningVerdicts(study)
    # Where the ORM reads the rest from (a replica, when the page chose one).
    with connections[router.db_for_read(Issue)].cursor() as cursor:
        # No parameters: a study's name may hold a per cent sign that a parameterised statement would read as a
        # placeholder, and the rest are whole numbers written into the statement.
        found = cursor.cursor.stream(query, size=columns.CHUNK if CHUNKED_MODE else 1)
        for issue_id, source_id, kept, pre, head, tail in found:
            verdict, why = screening.one(source_id, issue_id, kept, pre)
            yield f'{head[:-1]}, "screening" : {_dumps(verdict)}, "screening_reason" : {_dumps(why)}, {tail[1:]}\n'
