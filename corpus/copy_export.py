"""The corpus CSV written by PostgreSQL itself (COPY … TO STDOUT), on PostgreSQL.

Built in Python (corpus.exports.csv_rows, which SQLite uses), 40,000 reports × 7 labels cost five times what the
database alone needs to deliver the same rows: model instances, dates parsed and formatted again, a JSON
document and a CSV row assembled per report. Here the database does all of it in one statement; Python only
hands it what lives outside the tables' plain columns (each report's screening verdict, derived from the source's
decisions, and the machine raters' labels) through a temporary table. Rows, columns and cell values are those of
csv_rows — tests/corpus/test_copy_export.py reads both back and compares them cell by cell — with two differences
in bytes only: lines end in LF instead of CRLF, and the JSON columns write `"key" : value` (PostgreSQL's json).
"""
from __future__ import annotations

import json
from collections.abc import Iterator

from django.contrib.auth import get_user_model
from django.db import connection, transaction
from psycopg import sql

from annotation.models import NOT_RELEVANT, FinalLabel, Label, Round, Study
from annotation.selectors.labels import ScreeningVerdicts
from concord import rows
from concord.csv_stream import FORMULA_STARTS
from ingest.models import Issue, Keyword, Source, Summary
from machines.exports import LabelsByReport
from taxonomy.models import Category

from .columns import CSV_COLUMNS, id_ranges, study_status

EXTRA = "concord_corpus_extra"


def _text(expression: str, raw: bool) -> str:
    """A cell, never NULL, with a leading apostrophe where a spreadsheet would run it as a formula."""
    cell = f"COALESCE({expression}, '')"
    if raw:
        return cell
    starts = ", ".join(sql.quote(start) for start in FORMULA_STARTS)
    return f"(CASE WHEN left({cell}, 1) IN ({starts}) THEN '''' || {cell} ELSE {cell} END)"


def iso_sql(column: str) -> str:
    """Python's datetime.isoformat() of a UTC timestamp: microseconds only when there are any (".000000" can
    only be the microseconds: nothing else in the pattern has a point)."""
    return (f"replace(to_char({column} AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS.US'), '.000000', '') "
            "|| '+00:00'")


def how_sql() -> str:
    """FinalLabel.how in SQL, with its machine votes."""
    named = " ".join(f"WHEN {sql.quote(value)} THEN {sql.quote(str(label).lower())}"
                     for value, label in FinalLabel.Method.choices)
    return (f"CASE WHEN d.id IS NULL THEN '' WHEN [[d.method]] = {sql.quote(FinalLabel.Method.MAJORITY.value)} "
            "AND COALESCE([[d.support]], 0) <> 0 AND COALESCE([[d.raters]], 0) <> 0 "
            "THEN CASE WHEN 2 * [[d.support]] > [[d.raters]] THEN 'majority ' ELSE 'plurality ' END "
            "|| [[d.support]] || '/' || [[d.raters]] "
            f"ELSE CASE [[d.method]] {named} ELSE [[d.method]] END END"
            " || CASE WHEN d.id IS NOT NULL AND [[d.machine_votes]] > 0 THEN ' (' || [[d.machine_votes]] || "
            "' machine vote' || CASE WHEN [[d.machine_votes]] > 1 THEN 's' ELSE '' END || ')' ELSE '' END")


def labels_json(study_id: int) -> str:
    """A subquery: the report `i`'s labels in `study_id` as a JSON array, as corpus.exports.records lists them."""
    return ("SELECT json_agg(json_build_object("
            "'annotator', [[u.username]], 'round', [[r.number]], 'round_kind', [[r.kind]], "
            "'choice', CASE WHEN [[l.is_relevant]] THEN COALESCE([[ls.code]], [[lh.code]], [[ly.code]]) "
            f"ELSE {sql.quote(NOT_RELEVANT)} END, "
            f"'note', [[l.note]], 'time', {iso_sql('[[l.updated_at]]')}, 'codebook_revision', [[l.codebook_revision]], "
            "'summary_shown', [[l.summary_shown]]) ORDER BY [[r.number]], [[u.username]]) "
            "FROM [[l]] JOIN [[u]] ON u.id = [[l.annotator]] JOIN [[r]] ON r.id = [[l.round]] "
            "LEFT JOIN [[ly]] ON ly.id = [[l.type]] LEFT JOIN [[lh]] ON lh.id = [[l.theme]] "
            "LEFT JOIN [[ls]] ON ls.id = [[l.sub_theme]] "
            f"WHERE [[l.study]] = {int(study_id)} AND [[l.issue]] = i.id")


def _query(study: Study, status: str, codebook: str, raw: bool) -> str:
    study_id = int(study.pk)
    cells = [
        sql.quote(study.name), sql.quote(status), "[[src.full_name]]", "[[i.number]]", "[[i.url]]", "[[i.title]]",
        "[[i.body]]", f"CASE WHEN [[i.created_at]] IS NULL THEN '' ELSE {iso_sql('[[i.created_at]]')} END",
        "(SELECT string_agg([[k.term]], ' ' ORDER BY [[k.term]] COLLATE \"C\") FROM [[ik]] "
        "JOIN [[k]] ON k.id = [[ik.keyword]] WHERE [[ik.issue]] = i.id)",
        "COALESCE(x.screening, 'undecided')", "COALESCE(x.screening_reason, 'not screened')",
        f"(SELECT [[s.text]] FROM [[s]] WHERE [[s.issue]] = i.id "
        f"AND [[s.status]] = {sql.quote(Summary.Status.OK.value)} ORDER BY [[s.updated_at]] DESC, s.id DESC LIMIT 1)",
        "CASE WHEN d.id IS NULL THEN '' WHEN [[d.is_relevant]] THEN COALESCE([[ft.code]], '') "
        f"ELSE {sql.quote(NOT_RELEVANT)} END",
        "CASE WHEN d.id IS NULL THEN '' WHEN [[d.is_relevant]] THEN COALESCE([[ft.name]], '') ELSE 'Not relevant' END",
        "[[ftm.code]]", "[[ftm.name]]", "[[fs.code]]", "[[fs.name]]", how_sql(), "[[d.rationale]]", sql.quote(codebook),
        f"COALESCE(({labels_json(study_id)})::text, '[]')",
        "COALESCE(x.machine_labels, '{}')",
    ]
    # The cells are computed once in an inner query; the outer one only neutralises them (a CASE that named a
    # cell's subquery three times would run it three times). The outer query is a plain projection of the ordered
    # inner one, which PostgreSQL keeps in order; sorting there instead would sort the finished cells (230 MB for
    # 40,000 reports, half again the time). tests/corpus/test_copy_export.py checks the order.
    inner = ", ".join(f"({cell})::text AS c{n}" for n, cell in enumerate(cells))
    columns = ", ".join(f'{_text(f"c{n}", raw)} AS "{name}"' for n, name in enumerate(CSV_COLUMNS))
    return rows.named(
        f"COPY (SELECT {columns} FROM (SELECT {inner} "
        "FROM [[si]] JOIN [[i]] ON i.id = [[si.issue]] JOIN [[src]] ON src.id = [[i.source]] "
        f"LEFT JOIN {EXTRA} x ON x.issue_id = i.id "
        f"LEFT JOIN [[d]] ON [[d.study]] = {study_id} AND [[d.issue]] = i.id "
        "LEFT JOIN [[ft]] ON ft.id = [[d.type]] LEFT JOIN [[ftm]] ON ftm.id = [[d.theme]] "
        "LEFT JOIN [[fs]] ON fs.id = [[d.sub_theme]] "
        f"WHERE [[si.study]] = {study_id} ORDER BY [[i.created_at]], i.id) AS cells) "
        "TO STDOUT WITH (FORMAT csv, HEADER)",
        si=Study.issues.through, i=Issue, src=Source, d=FinalLabel, ft=Category, ftm=Category, fs=Category,
        ik=Issue.matched_keywords.through, k=Keyword, s=Summary, l=Label, u=get_user_model(), r=Round,
        ly=Category, lh=Category, ls=Category,
    )


def copy_csv(study: Study, raw: bool = False) -> Iterator[bytes]:
    """The corpus CSV in blocks of bytes, as csv_rows would write it (see the module's note)."""

    status = study_status(study)
    codebook = f"{study.codebook.name} {study.codebook.version}, revision {study.codebook.revision}"
    screening_of, machine_of = ScreeningVerdicts(study), LabelsByReport(study)
    # One transaction: the temporary table lives until its end (also behind PgBouncer in transaction mode).
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute(f"CREATE TEMPORARY TABLE {EXTRA} (issue_id bigint PRIMARY KEY, screening text, "
                       "screening_reason text, machine_labels text) ON COMMIT DROP")
        # A range of reports at a time, so that memory does not grow with the corpus; each range's verdicts are
        # read before its COPY starts (a connection in COPY runs no other query). A range may hold issues of the
        # sources that are not in the study: the query below joins only the study's.
        for id_range in id_ranges(study):
            screening, machine = screening_of(None, id_range), machine_of(None, id_range)
            with cursor.cursor.copy(f"COPY {EXTRA} FROM STDIN") as copy:
                for issue_id in set(screening) | set(machine):
                    verdict, why = screening.get(issue_id, ("undecided", "not screened"))
                    copy.write_row((issue_id, verdict, why,
                                    json.dumps(machine.get(issue_id, {}), ensure_ascii=False)))
        with cursor.cursor.copy(_query(study, status, codebook, raw)) as copy:
            for block in copy:
                yield bytes(block)
        # Dropped now, not only at commit: a caller's outer transaction may export twice (an error on the way
        # rolls the table back with everything else).
        cursor.execute(f"DROP TABLE {EXTRA}")
