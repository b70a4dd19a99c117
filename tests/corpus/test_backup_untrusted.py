"""A backup is untrusted input: a restore takes only the kinds and fields its format lists,
validates every value, never grants a login or a privilege, and refuses anything else naming its line."""
from __future__ import annotations

import gzip
import json

import pytest
from django.apps import apps
from django.contrib.auth import get_user_model
from django.core.management import CommandError, call_command

from annotation.models import Study
from corpus.backup import VERSION, export_study, import_study
from corpus.backup_format import FORMATS, REFERENCES_RENAMED, RENAMED
from ingest.models import Issue
from tests.factories import label_with

pytestmark = pytest.mark.django_db
User = get_user_model()


@pytest.fixture
def backup(study, annotator_a, tmp_path):
    label_with(annotator_a, study, study.issues.first(), "C.1", note="alice's note")
    return _exported(study, tmp_path)


def _exported(study, tmp_path) -> list[dict]:
    path = tmp_path / "study.jsonl.gz"
    export_study(study, path)
    lines = [json.loads(line) for line in gzip.open(path, "rt", encoding="utf-8")]
    # Restored under another name, beside the original.
    lines[0]["study"] = "Restored"
    next(r for r in lines if r.get("kind") == "annotation.study")["fields"]["name"] = "Restored"
    return lines


def _write(tmp_path, lines, extra: list[dict] = ()) -> str:
    lines = [*lines[:-1], *extra, {"kind": "end", "records": len(lines) - 2 + len(extra)}]
    path = tmp_path / "edited.jsonl.gz"
    with gzip.open(path, "wt", encoding="utf-8") as f:
        for line in lines:
            f.write((line if isinstance(line, str) else json.dumps(line)) + "\n")
    return str(path)


def _refused(path, *words):
    users, studies = User.objects.count(), Study.objects.count()
    with pytest.raises(CommandError) as refused:
        call_command("import_study", path)
    message = str(refused.value)
    assert "line " in message and all(w in message for w in words), message
    assert (User.objects.count(), Study.objects.count()) == (users, studies)
    assert not User.objects.filter(is_superuser=True).exists()


def test_an_untouched_backup_restores(backup, tmp_path, capsys):
    restored = import_study(_write(tmp_path, backup))
    assert restored.study.name == "Restored" and restored.new_users == []


ROOT = {"username": "root2", "password": "pbkdf2_sha256$1000000$salt$hash=", "is_superuser": True,
        "is_staff": True}


@pytest.mark.parametrize("kind", ["auth.User", "auth.user", "AUTH.USER"])
def test_a_user_row_with_powers_is_refused(backup, tmp_path, kind):
    _refused(_write(tmp_path, backup, [{"kind": kind, "pk": 999, "fields": ROOT, "fk": {}}]))
    assert not User.objects.filter(username="root2").exists()


@pytest.mark.parametrize("kind", ["auth.group", "auth.permission", "admin.logentry", "annotation.invitation",
                                  "sessions.session", "axes.accessattempt", "end2", None, 7])
def test_kinds_outside_the_format_are_refused(backup, tmp_path, kind):
    _refused(_write(tmp_path, backup, [{"kind": kind, "pk": 999, "fields": {}, "fk": {}}]), "kind")


def test_a_new_user_gets_no_password_and_no_rights_and_is_listed(backup, tmp_path, capsys):
    newcomer = {"kind": "auth.user", "pk": 998, "fields": {"username": "newcomer", "first_name": "New"}, "fk": {}}
    at = next(i for i, r in enumerate(backup) if r.get("kind") == "auth.user")
    call_command("import_study", _write(tmp_path, [*backup[:at], newcomer, *backup[at:]][:-1] + [backup[-1]]))
    user = User.objects.get(username="newcomer")
    assert not user.has_usable_password() and not user.is_staff and not user.is_superuser
    assert not user.groups.exists() and not user.user_permissions.exists()
    assert "newcomer" in capsys.readouterr().out


def _edit(backup, kind, change):
    record = next(r for r in backup if r.get("kind") == kind)
    change(record)
    return backup


@pytest.mark.parametrize("kind, change, words", [
    ("annotation.study", lambda r: r["fields"].update(name="x" * 300), ["name", "at most 200"]),
    ("annotation.label", lambda r: r["fields"].update(note="bad\x00note"), ["note", "NUL"]),
    ("annotation.membership", lambda r: r["fields"].update(role="superlead"), ["role"]),
    ("annotation.label", lambda r: r["fields"].update(is_relevant="sometimes"), ["is_relevant"]),
    ("annotation.study", lambda r: r["fields"].update(pilot_fraction="a lot"), ["pilot_fraction"]),
    ("annotation.study", lambda r: r["fields"].update(overlap=-3), ["overlap"]),
    ("annotation.study", lambda r: r["fields"].update(seed=10**30), ["seed"]),
    ("annotation.label", lambda r: r["fields"].update(created_at="yesterday"), ["created_at"]),
    ("annotation.label", lambda r: r["fields"].update(secret="x"), ["secret"]),
    ("annotation.label", lambda r: r.update(pk="7"), ["pk"]),
    ("annotation.label", lambda r: r.update(fields=[1, 2]), ["fields"]),
    ("annotation.label", lambda r: r["fk"].update(annotator="1"), ["references"]),
    ("annotation.label", lambda r: r["fk"].update(annotator=10**9), ["annotator"]),
    ("annotation.label", lambda r: r.update(extra=True), ["extra"]),
    ("annotation.study", lambda r: r["m2m"].update(issues="all"), ["lists"]),
    ("auth.user", lambda r: r["fields"].update(username="bad name!" * 30), ["username"]),
    ("auth.user", lambda r: r["fields"].update(is_staff=True), ["is_staff"]),
    ("annotation.label", lambda r: r["fields"].update(created_at="0001-01-01T00:00:00+00:00"), ["created_at",
                                                                                               "1900"]),
    ("annotation.label", lambda r: r["fields"].update(updated_at="9999-12-31T23:59:59+00:00"), ["updated_at",
                                                                                               "2100"]),
    ("ingest.issue", lambda r: r["fields"].update(created_at="1899-12-31T23:00:00+00:00"), ["created_at"]),
    ("annotation.label", lambda r: r["fields"].update(note="lone \ud800 surrogate"), ["note", "surrogate"]),
    ("ingest.issue", lambda r: r["fields"].update(payload=json.loads("[" * 900 + "]" * 900)), ["payload",
                                                                                                "nested"]),
    ("annotation.label", lambda r: r["fields"].update(note="n" * 5001), ["note", "5,000"]),
])
def test_bad_values_are_refused_naming_line_and_field(backup, tmp_path, kind, change, words):
    _refused(_write(tmp_path, _edit(backup, kind, change)), *words)


@pytest.mark.parametrize("version", [[1], "1", True, VERSION + 1, None, {"v": 1}])
def test_a_header_with_a_strange_version_is_refused(backup, tmp_path, version):
    backup[0]["version"] = version
    with pytest.raises(CommandError, match="format version"):
        call_command("import_study", _write(tmp_path, backup))


def test_deep_nesting_and_bad_bytes_are_refused(backup, tmp_path):
    deep = "[" * 100_000 + "]" * 100_000
    _refused(_write(tmp_path, backup[:2] + [deep] + backup[2:]), "nested")
    path = tmp_path / "bad-utf8.jsonl.gz"
    with gzip.open(path, "wb") as f:
        f.write(json.dumps(backup[0]).encode() + b"\n" + b'{"kind": "\xff\xfe"}\n')
    with pytest.raises(CommandError, match="not a readable"):
        call_command("import_study", str(path))


def test_a_javascript_url_in_a_backup_is_dropped_with_a_warning(backup, tmp_path, capsys, study):
    number = "js-1"
    backup = _edit(backup, "ingest.issue", lambda r: r["fields"].update(number=number, url="javascript:alert(1)"))
    call_command("import_study", _write(tmp_path, backup))
    assert Issue.objects.get(number=number).url == ""
    assert "not an http(s) link, dropped" in capsys.readouterr().out


def test_export_writes_only_what_the_format_lists(backup):
    for record in backup[1:-1]:
        spec = FORMATS[VERSION][record["kind"]]
        assert set(record["fields"]) <= set(spec.fields) and set(record["fk"]) <= set(spec.fk), record["kind"]
        assert set(record.get("m2m", {})) <= set(spec.m2m)


def test_the_format_names_real_fields_and_nothing_that_grants_rights():
    for version, kinds in FORMATS.items():
        for kind, spec in kinds.items():
            model = apps.get_model(RENAMED[version].get(kind, kind))
            renamed = REFERENCES_RENAMED[version]
            for name in (*spec.fields, *(renamed.get(f, f) for f in spec.fk), *spec.m2m):
                model._meta.get_field(name)
        rights = {"password", "is_staff", "is_superuser", "groups", "user_permissions"}
        assert not rights & set(kinds["auth.user"].fields)


def _record(kind: str, pk: int, fields: dict, fk: dict) -> dict:
    return {"kind": kind, "pk": pk, "fields": fields, "fk": fk}


def test_a_backup_cannot_add_to_rows_other_studies_use(backup, tmp_path, study, capsys):
    """Issues, sources and keyword lists already here are reused by a restore; it must not plant a summary on
    such an issue (it would become the one other studies show) or a keyword in such a list."""
    from ingest.models import Keyword, KeywordList, Summary

    shared = study.issues.order_by("pk").first()
    issue_record = next(r for r in backup if r.get("kind") == "ingest.issue" and r["fields"]["number"] ==
                        shared.number)
    lists = KeywordList.objects.create(name="shared list")
    planted = [
        _record("ingest.keywordlist", 9001, {"name": "shared list", "description": "", "created_at":
                                              "2026-01-01T00:00:00+00:00"}, {}),
        _record("ingest.keyword", 9002, {"term": "planted", "origin": "model_name", "status": "accepted",
                                         "created_at": "2026-01-01T00:00:00+00:00"}, {"keyword_list": 9001}),
        _record("ingest.summary", 9003, {"backend": "llm", "model": "POISON", "prompt_version": "x",
                                         "content_hash": "h" * 64, "text": "PLANTED SUMMARY", "verdict": "relevant",
                                         "reason": "", "status": "ok", "created_at": "2026-01-01T00:00:00+00:00",
                                         "updated_at": "2026-01-01T00:00:00+00:00"},
                {"issue": issue_record["pk"]}),
    ]
    at = next(i for i, r in enumerate(backup) if r.get("kind") == "ingest.source")
    after_issues = max(i for i, r in enumerate(backup) if r.get("kind") == "ingest.issue") + 1
    lines = [*backup[:at], *planted[:2], *backup[at:after_issues], planted[2], *backup[after_issues:]]
    restored = import_study(_write(tmp_path, lines))
    assert restored.study.name == "Restored"
    assert not Summary.objects.filter(text="PLANTED SUMMARY").exists()
    assert not Keyword.objects.filter(keyword_list=lists, term="planted").exists()
    assert any("ingest.summary not restored" in w for w in restored.warnings)


def test_a_genuine_backup_restores_beside_its_source_and_its_screening(study, annotator_a, annotator_b, lead,
                                                                      tmp_path):
    from ingest.models import ScreeningItem, ScreeningSample, ScreeningVote

    issue = study.issues.order_by("pk").first()
    sample = ScreeningSample.objects.create(kind=ScreeningSample.Kind.STRATUM, source=issue.source, seed=1,
                                            stratum="relevant", reviewer_a=annotator_a, reviewer_b=lead,
                                            tiebreaker=annotator_b)
    item = ScreeningItem.objects.create(sample=sample, issue=issue, position=0)
    ScreeningVote.objects.create(item=item, reviewer=annotator_a, is_relevant=True)
    path = tmp_path / "study.jsonl.gz"
    export_study(study, path)
    lines = [json.loads(line) for line in gzip.open(path, "rt", encoding="utf-8")]
    lines[0]["study"] = "Restored"
    next(r for r in lines if r.get("kind") == "annotation.study")["fields"]["name"] = "Restored"
    restored = import_study(_write(tmp_path, lines))
    assert restored.study.name == "Restored"
    assert (ScreeningSample.objects.count(), ScreeningItem.objects.count(), ScreeningVote.objects.count()) == \
        (1, 1, 1)


@pytest.mark.parametrize("as_of", ["yesterday", "2026-01-01T00:00:00\x00", 12345, [2026, 1, 1], {"at": "now"},
                                   "9999-12-31T23:59:59+00:00", "0001-01-01T00:00:00+00:00", "x" * 10_000])
def test_a_snapshots_moment_is_refused_unless_a_date_in_range(study, annotator_a, tmp_path, as_of):
    from agreement.services import snapshot

    label_with(annotator_a, study, study.issues.first(), "C.1")
    snapshot(study.rounds.get())
    lines = _exported(study, tmp_path)
    record = next(r for r in lines if r.get("kind") == "agreement.agreementsnapshot")
    assert record["fields"]["as_of"]  # the file carries it
    record["fields"]["as_of"] = as_of
    _refused(_write(tmp_path, lines), "as_of")


def test_records_that_break_a_rule_of_the_database_are_refused_naming_their_lines(backup, tmp_path):
    """Each value passes its own checks, but a second current label of the same annotator on the same report in
    the same round breaks a constraint only the database sees (rows are written by COPY on PostgreSQL): the
    restore is refused with the lines of the batch and the rule's name, and nothing is left of it."""
    label = next(r for r in backup if r.get("kind") == "annotation.label")
    at = backup.index(label)
    twin = json.loads(json.dumps(label)) | {"pk": label["pk"] + 1000}
    path = _write(tmp_path, [*backup[:at + 1], twin, *backup[at + 1:]])
    Label = apps.get_model("annotation.label")
    labels, studies = Label.objects.count(), Study.objects.count()
    with pytest.raises(CommandError) as refused:
        call_command("import_study", path)
    message = str(refused.value)
    assert f"lines {at + 1}-{at + 2}: these annotation.label records break a rule of the database" in message
    # PostgreSQL names the constraint, SQLite its columns.
    assert "label_one_current_per_round" in message or "UNIQUE constraint failed: annotation_label" in message
    assert (Label.objects.count(), Study.objects.count()) == (labels, studies)
