from __future__ import annotations

import json

import pytest
from django.core.management import CommandError, call_command
from hypothesis import given, settings
from hypothesis import strategies as st

from ingest.importers import ImportFileError
from ingest.models import Issue, Source
from ingest.services.files import import_file as import_jsonl
from tests.factories import make_source

pytestmark = pytest.mark.django_db


def _issue(number, **overrides) -> dict:
    issue = {
        "number": number, "title": f"Issue {number}", "body": "CUDA out of memory with llama",
        "html_url": f"https://github.com/o/r/issues/{number}", "state": "open",
        "user": {"login": "someone"}, "labels": [{"name": "bug"}], "comments": 2,
        "created_at": "2024-03-01T10:00:00Z", "closed_at": None,
    }
    issue.update(overrides)
    return issue


def _write(path, lines) -> str:
    path.write_text("\n".join(x if isinstance(x, str) else json.dumps(x) for x in lines) + "\n", encoding="utf-8")
    return str(path)


def test_import_reads_github_fields(tmp_path):
    source = make_source("o/r")
    result = import_jsonl(_write(tmp_path / "a.jsonl", [_issue(1), _issue(2, state="closed")]), source)
    assert (result.created, result.updated) == (2, 0)
    issue = Issue.objects.get(source=source, number="1")
    assert issue.author == "someone" and issue.platform_labels == ["bug"] and issue.comment_count == 2
    assert issue.created_at.year == 2024 and issue.original_payload()["title"] == "Issue 1"
    assert "body" not in issue.payload and issue.original_payload()["body"] == issue.body


def test_reimport_is_an_upsert_nothing_duplicates_nothing_is_lost(tmp_path):
    source = make_source("o/r")
    import_jsonl(_write(tmp_path / "a.jsonl", [_issue(1), _issue(2)]), source)
    result = import_jsonl(_write(tmp_path / "b.jsonl", [_issue(2, title="Renamed"), _issue(3)]), source)
    assert (result.created, result.updated) == (1, 1)
    assert sorted(Issue.objects.values_list("number", flat=True)) == ["1", "2", "3"]
    assert Issue.objects.get(number="2").title == "Renamed"


def test_a_reimport_counts_as_updated_only_the_issues_that_changed(tmp_path):
    """A re-ingest of unchanged issues said "540 updated"."""
    source = make_source("o/r")
    path = _write(tmp_path / "a.jsonl", [_issue(n) for n in range(1, 6)])
    import_jsonl(path, source)
    stamps = dict(Issue.objects.values_list("number", "updated_at"))
    again = import_jsonl(path, source)
    assert (again.created, again.updated, again.unchanged) == (0, 0, 5)
    assert "0 updated, 5 unchanged" in again.message
    assert dict(Issue.objects.values_list("number", "updated_at")) == stamps  # not rewritten
    changed = import_jsonl(_write(tmp_path / "b.jsonl", [_issue(1, state="closed"), *[_issue(n) for n in range(2, 6)],
                                                          _issue(6)]), source)
    assert (changed.created, changed.updated, changed.unchanged) == (1, 1, 4)


def test_pull_requests_are_skipped(tmp_path):
    source = make_source("o/r")
    result = import_jsonl(_write(tmp_path / "a.jsonl", [_issue(1), _issue(2, pull_request={"url": "x"})]), source)
    assert result.skipped_pull_requests == 1 and Issue.objects.count() == 1


def test_comment_objects_are_kept(tmp_path):
    comments = [{"user": {"login": "maintainer"}, "body": "Try --enforce-eager", "created_at": "2024-03-02T00:00:00Z"}]
    import_jsonl(_write(tmp_path / "a.jsonl", [_issue(1, comments=comments)]), make_source("o/r"))
    issue = Issue.objects.get()
    assert issue.comment_count == 1 and issue.comments[0]["author"] == "maintainer"


@pytest.mark.parametrize(
    ("bad_line", "message"),
    [
        ('{"number": 3, "title": "x"', "a.jsonl:3: not valid JSON"),
        (json.dumps(_issue(3, title=None)), "a.jsonl:3: title: missing"),
        (json.dumps(_issue(3, created_at="yesterday")), "a.jsonl:3: created_at: 'yesterday' is not a date-time"),
        (json.dumps(_issue(3, labels="bug")), "a.jsonl:3: labels: text (expected a list"),
        (json.dumps({"title": "no number"}), "a.jsonl:3: number: missing"),
        ("[1, 2]", "a.jsonl:3: the record is a list (expected a JSON object"),
    ],
)
def test_a_bad_line_stops_the_import_names_file_and_line_and_changes_nothing(tmp_path, bad_line, message):
    source = make_source("o/r")
    import_jsonl(_write(tmp_path / "before.jsonl", [_issue(1, title="Original")]), source)
    path = _write(tmp_path / "a.jsonl", [_issue(1, title="Changed"), _issue(2), bad_line, _issue(4)])
    with pytest.raises(ImportFileError) as error:
        import_jsonl(path, source)
    assert message in str(error.value)
    assert list(Issue.objects.values_list("number", "title")) == [("1", "Original")]


def test_command_imports_and_reports(tmp_path, capsys):
    path = _write(tmp_path / "a.jsonl", [_issue(1), _issue(2)])
    call_command("import_issues", path, "--source", "vllm-project/vllm")
    assert "2 new, 0 updated" in capsys.readouterr().out
    assert Source.objects.get().full_name == "vllm-project/vllm"


def test_command_with_bad_file_leaves_no_source_behind(tmp_path):
    path = _write(tmp_path / "a.jsonl", [_issue(1), "not json"])
    with pytest.raises(CommandError, match=r"a.jsonl:2: not valid JSON.*Nothing was imported"):
        call_command("import_issues", path, "--source", "new/repo")
    assert not Source.objects.exists() and not Issue.objects.exists()


def test_command_rejects_a_source_that_is_not_owner_name(tmp_path):
    with pytest.raises(CommandError, match="expected OWNER/NAME"):
        call_command("import_issues", _write(tmp_path / "a.jsonl", [_issue(1)]), "--source", "justaname")


def test_demo_corpus_imports_whole(tmp_path):
    from demo.services import DEMO_ISSUES

    result = import_jsonl(DEMO_ISSUES, make_source("vllm-project/vllm"))
    assert result.created == 300


@pytest.mark.parametrize("where", ["missing.jsonl", "."])
def test_a_path_that_is_not_a_file_is_named_without_a_traceback(tmp_path, where):
    with pytest.raises(CommandError) as refused:
        call_command("import_issues", str(tmp_path / where), source="acme/tools")
    assert "no such file" in str(refused.value) and "Nothing was imported" in str(refused.value)
    assert not Source.objects.exists()


@settings(max_examples=500, deadline=None)
@given(st.recursive(st.none() | st.booleans() | st.integers(min_value=-(10**25), max_value=10**25)
                    | st.floats(allow_nan=False, allow_infinity=False) | st.text(max_size=8),
                    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=5), inner, max_size=4),
                    max_leaves=20))
def test_a_line_parses_to_what_the_standard_library_reads(value):
    from ingest.importers.jsonl import loads

    line = json.dumps(value)
    assert loads(line, "f:1") == json.loads(line) and repr(loads(line, "f:1")) == repr(json.loads(line))


def test_an_integer_past_64_bits_is_stored_whole_or_refused_by_name(tmp_path):
    source = make_source("o/r")
    big = 123456789012345678901234567890
    import_jsonl(_write(tmp_path / "a.jsonl", [json.dumps(_issue(1, extra={"id": big, "ids": [-(2**63) - 1]}))]),
                 source)
    payload = Issue.objects.get(source=source, number="1").payload
    assert payload["extra"] == {"id": big, "ids": [-(2**63) - 1]}
    with pytest.raises(ImportFileError, match=r"number: a 24-digit number"):
        import_jsonl(_write(tmp_path / "b.jsonl", [json.dumps(_issue(10**23))]), source)


_ODD = st.one_of(st.text(alphabet="ab\x00\ud800\udc00é ", max_size=6),
                 st.integers(min_value=-(10**21), max_value=10**21), st.none(), st.lists(st.integers(), max_size=2),
                 st.recursive(st.none(), lambda x: st.lists(x, max_size=1), max_leaves=80))


@settings(max_examples=800, deadline=None)
@given(title=_ODD, body=_ODD, login=_ODD, label=_ODD, comment_body=_ODD, comment_time=_ODD, extra=_ODD)
def test_a_line_is_refused_or_read_as_the_full_checks_would(title, body, login, label, comment_body, comment_time,
                                                            extra):
    # The reader skips walking text it knows is clean; the outcome must be the one of checking everything.
    from ingest.importers.github_fields import record_from_github
    from ingest.importers.jsonl import clean_line, loads, parse_line
    from ingest.importers.limits import check_payload

    obj = {"number": 7, "title": title, "body": body, "user": {"login": login}, "labels": [label],
           "comments": [{"user": {"login": "x"}, "body": comment_body, "created_at": comment_time}], "extra": extra}
    line = clean_line(json.dumps(obj))

    def outcome(read):
        try:
            return read()
        except ImportFileError as exc:
            return str(exc)

    def full():
        parsed = loads(line, "f:1")
        check_payload(line, parsed, "f:1")
        return record_from_github(parsed, "f:1")

    assert outcome(lambda: parse_line(line, "f:1")) == outcome(full)
