"""Every file format people already have, detected, streamed, and refused clearly when broken."""
from __future__ import annotations

import json

import pytest
from django.core.management import CommandError, call_command
from django.db import connection

from ingest import parallel
from ingest.importers import ImportFileError
from ingest.importers.detect import detect_format
from ingest.models import IngestRun, Issue, Source
from ingest.services.files import count_lines, import_file
from tests.factories import make_source
from tests.ingest.replay import github_pages

pytestmark = pytest.mark.django_db

GH_ISSUE = {
    "number": 101, "title": "vLLM OOM with llama", "body": "CUDA out of memory", "state": "OPEN",
    "author": {"login": "octocat"}, "createdAt": "2024-05-01T10:00:00Z", "closedAt": None,
    "labels": [{"name": "bug", "id": "LA_1"}], "url": "https://github.com/o/r/issues/101",
    "comments": [
        {"author": {"login": "maintainer"}, "body": "Try --enforce-eager", "createdAt": "2024-05-02T10:00:00Z"},
    ],
}


def _write(path, text: str, encoding="utf-8") -> str:
    path.write_text(text, encoding=encoding)
    return str(path)


def test_saved_github_api_page(tmp_path):
    page = github_pages()[0]["response"]
    path = _write(tmp_path / "page.json", json.dumps(page, indent=2))
    assert detect_format(path) == "github"
    run = import_file(path, make_source("o/r"))
    assert run.created == 3 and Issue.objects.get(number="13").comment_count == 42


@pytest.mark.parametrize("layout", ["concatenated", "nested"])
def test_many_saved_pages(tmp_path, layout):
    pages = [p["response"] for p in github_pages()]
    text = "".join(json.dumps(p) for p in pages) if layout == "concatenated" else json.dumps(pages)
    run = import_file(_write(tmp_path / "pages.json", text), make_source("o/r"))
    assert run.created == 13


def test_gh_cli_output(tmp_path):
    path = _write(tmp_path / "gh.json", json.dumps([GH_ISSUE]))
    assert detect_format(path) == "gh"
    import_file(path, make_source("o/r"))
    issue = Issue.objects.get()
    assert (issue.number, issue.author, issue.state, issue.platform_labels) == ("101", "octocat", "open", ["bug"])
    assert issue.comments[0] == {"author": "maintainer", "body": "Try --enforce-eager",
                                 "created_at": "2024-05-02T10:00:00Z"}


def test_csv_with_bom_multiline_bodies_and_label_lists(tmp_path):
    text = ('number,title,body,labels,created_at,comments\r\n'
            '1,"First","line one\nline two","bug; cuda",2024-01-01T00:00:00Z,3\r\n'
            '2,Second,plain,,,\r\n')
    path = _write(tmp_path / "issues.csv", text, encoding="utf-8-sig")
    run = import_file(path, make_source("o/r"))
    assert run.created == 2
    first = Issue.objects.get(number="1")
    assert first.body == "line one\nline two" and first.platform_labels == ["bug", "cuda"]
    assert first.comment_count == 3


def test_csv_errors_name_the_physical_line(tmp_path):
    text = 'number,title,body\n1,"First","spans\ntwo lines"\n2,,missing title\n'
    with pytest.raises(ImportFileError, match=r"issues.csv:4: title: empty"):
        import_file(_write(tmp_path / "issues.csv", text), make_source("o/r"))
    assert not Issue.objects.exists()


def test_csv_without_required_columns(tmp_path):
    with pytest.raises(ImportFileError, match=r"x.csv:1: missing column\(s\) number"):
        import_file(_write(tmp_path / "x.csv", "title,body\nA,B\n"), make_source("o/r"))


def test_nul_characters_are_replaced_not_fatal(tmp_path):
    lines = [json.dumps({"number": 1, "title": "nul\u0000title", "body": "before\u0000after"})]
    import_file(_write(tmp_path / "a.jsonl", "\n".join(lines)), make_source("o/r"))
    issue = Issue.objects.get()
    assert issue.body == "before\ufffdafter" and issue.title == "nul\ufffdtitle"
    assert "\u0000" not in json.dumps(issue.payload)


def test_broken_json_array_names_the_line(tmp_path):
    text = '[\n  {"number": 1, "title": "ok"},\n  {"number": 2, "title": "broken",,}\n]\n'
    with pytest.raises(ImportFileError, match=r"broken.json:3: not valid JSON"):
        import_file(_write(tmp_path / "broken.json", text), make_source("o/r"))
    assert not Issue.objects.exists()


def test_a_file_in_no_known_format(tmp_path):
    with pytest.raises(ImportFileError, match="cannot tell the format"):
        import_file(_write(tmp_path / "notes.txt", "just some notes"), make_source("o/r"))


def test_the_wrong_format_given_explicitly_fails_clearly(tmp_path):
    path = _write(tmp_path / "a.jsonl", json.dumps({"number": 1, "title": "x"}))
    with pytest.raises(ImportFileError, match="missing column"):
        import_file(path, make_source("o/r"), file_format="csv")


def test_a_failed_import_is_recorded_on_its_run(tmp_path):
    source = make_source("o/r")
    with pytest.raises(ImportFileError):
        import_file(_write(tmp_path / "a.jsonl", "{not json"), source)
    run = IngestRun.objects.get()
    assert run.status == IngestRun.Status.FAILED and "a.jsonl:1" in run.message and run.errors == 1


def test_framework_sources_keep_keyword_matches_and_record_them(tmp_path):
    from ingest.services.keywords import SHIPPED_LISTS, load_keyword_list

    source = Source.objects.create(full_name="pytorch/pytorch", kind=Source.Kind.FRAMEWORK,
                                   keyword_list=load_keyword_list(SHIPPED_LISTS / "pytorch.json"))
    lines = [
        {"number": 1, "title": "FSDP hangs with LLaMA", "body": "using torch.distributed"},
        {"number": 2, "title": "Typo in docs", "body": "see `llama` in code only"},
        {"number": 3, "title": "Old LLM issue", "body": "llm", "created_at": "2021-01-01T00:00:00Z"},
    ]
    source.created_from = __import__("datetime").date(2023, 1, 1)
    source.save()
    run = import_file(_write(tmp_path / "a.jsonl", "\n".join(json.dumps(x) for x in lines)), source)
    assert (run.created, run.filtered_out) == (2, 2)  # 2 stored (one kept); 3 is outside the window
    first = Issue.objects.get(number="1")
    assert first.kept and set(first.matched_keywords.values_list("term", flat=True)) == {
        "fsdp", "llama", "torch.distributed"}
    assert not Issue.objects.get(number="2").kept
    assert not Issue.objects.filter(number="3").exists()


def test_worker_processes_give_the_same_result_and_the_same_errors(tmp_path, settings, monkeypatch):
    settings.INGEST_PARALLEL_MIN_BYTES = 0
    settings.INGEST_PROCESSES = 2
    # Chunks of a few lines each, so that faults fall in different chunks and workers.
    monkeypatch.setattr(parallel, "CHUNK_BYTES", 1000)
    lines = [json.dumps({"number": n, "title": f"Issue {n}", "body": "llama" if n % 2 else "x"}) for n in range(1, 501)]
    run = import_file(_write(tmp_path / "big.jsonl", "\n".join(lines)), make_source("o/r"))
    assert run.created == 500 and Issue.objects.count() == 500
    lines[321] = "{broken"
    with pytest.raises(ImportFileError, match=r"bad.jsonl:322: not valid JSON"):
        import_file(_write(tmp_path / "bad.jsonl", "\n".join(lines)), make_source("o/other"))
    assert not Issue.objects.filter(source__full_name="o/other").exists()
    # The workers decode the lines: a BOM and blank lines as in one process, invalid UTF-8 named by its line, and
    # the first fault in file order reported, whichever worker met it.
    raw = ("\ufeff" + "\n".join(lines[:321]) + "\n\n" + "\n".join(lines[322:])).encode() + b"\n{\"number\": \xff}\n"
    with pytest.raises(ImportFileError, match=r"raw.jsonl:501: not UTF-8 text"):
        import_file(_write_bytes(tmp_path / "raw.jsonl", raw), make_source("o/third"))
    raw = raw.replace(b"\n\n", b"\n{broken\n", 1)
    with pytest.raises(ImportFileError, match=r"raw.jsonl:322: not valid JSON"):
        import_file(_write_bytes(tmp_path / "raw.jsonl", raw), make_source("o/fourth"))
    good = raw.replace(b"\n{broken\n", b"\n\n").rsplit(b"\n{", 1)[0] + b"\n"
    assert import_file(_write_bytes(tmp_path / "good.jsonl", good), make_source("o/fifth")).created == 499


@pytest.mark.parametrize("chunk_bytes", [1, 7, 64, 1 << 20])
def test_chunks_cover_the_file_in_whole_lines_with_their_numbers(tmp_path, monkeypatch, chunk_bytes):
    monkeypatch.setattr(parallel, "CHUNK_BYTES", chunk_bytes)
    data = b"a\n\nlonger line than a chunk of seven\r\nb\n" + b"x" * 100 + b"\nlast, no newline"
    path = _write_bytes(tmp_path / "f.jsonl", data)
    chunks, lines = parallel.plan(path)
    assert lines == count_lines(path) == 6
    assert b"".join(data[offset:offset + size] for _p, _n, _first, offset, size in chunks) == data
    for _path, name, first, offset, size in chunks:
        assert name == "f.jsonl" and first == data[:offset].count(b"\n") + 1
        assert offset + size == len(data) or data[offset + size - 1:offset + size] == b"\n"


def _write_bytes(path, data: bytes) -> str:
    path.write_bytes(data)
    return str(path)


def test_import_command_detects_the_format(tmp_path, capsys):
    path = _write(tmp_path / "gh-output.json", json.dumps([GH_ISSUE]))
    call_command("import_issues", path, "--source", "o/r")
    assert "1 read: 1 new" in capsys.readouterr().out


def test_import_command_reports_a_bad_file(tmp_path):
    with pytest.raises(CommandError, match=r"x.csv:1: missing column"):
        call_command("import_issues", _write(tmp_path / "x.csv", "a,b\n1,2\n"), "--source", "o/r")


def test_a_failed_import_reports_no_writes_even_after_progress(tmp_path, settings):
    lines = [json.dumps({"number": n, "title": f"Issue {n}"}) for n in range(1, 2500)] + ["{broken"]
    source = make_source("o/r")
    with pytest.raises(ImportFileError, match="a.jsonl:2500: "):
        import_file(_write(tmp_path / "a.jsonl", "\n".join(lines)), source)
    run = IngestRun.objects.get()
    assert (run.status, run.created, run.updated) == ("failed", 0, 0)
    assert not Issue.objects.exists()


@pytest.mark.skipif(connection.vendor != "postgresql", reason="workers render COPY rows for PostgreSQL only")
def test_rows_through_shared_memory_are_stored_as_in_one_process(tmp_path, settings, monkeypatch):
    settings.INGEST_PARALLEL_MIN_BYTES = 0
    monkeypatch.setattr(parallel, "CHUNK_BYTES", 4000)
    text = "tab\there, back\\slash, new\nline, cr\r, 大模型 llama, `code`, \u2028"
    lines = [json.dumps({"number": n, "title": f"Issue {n} {text[:n % 40]}", "body": text * (n % 7),
                         "labels": [{"name": "bug"}] * (n % 2), "user": {"login": f"u{n}"},
                         "comments": [{"user": {"login": "m"}, "body": text}] * (n % 3),
                         "created_at": "2024-05-01T12:00:00Z"}, ensure_ascii=n % 2 == 0)
             for n in range(1, 301)]
    # A row longer than a slot of shared memory travels in its verdict; the rows after it use the slots again.
    lines[150] = json.dumps({"number": 151, "title": "long", "body": "llama " * (parallel.SLOT_BYTES // 5)})
    path = _write(tmp_path / "rows.jsonl", "\n".join(lines) + "\n")
    fields = ["number", "url", "title", "body", "author", "state", "platform_labels", "created_at", "closed_at",
              "comment_count", "comments", "payload", "kept"]
    stored = {}
    for processes in (2, 1):
        settings.INGEST_PROCESSES = processes
        source = make_source(f"o/r{processes}")
        assert import_file(path, source).created == 300
        stored[processes] = list(Issue.objects.filter(source=source).order_by("id").values_list(*fields))
        assert sorted(source.issues.values_list("number", "matched_keywords__term")) == sorted(
            Issue.objects.filter(source__full_name="o/r2").values_list("number", "matched_keywords__term"))
    assert stored[2] == stored[1]
    assert len(stored[2][150][3]) > parallel.SLOT_BYTES


@pytest.mark.skipif(connection.vendor != "postgresql", reason="the single-transaction import is PostgreSQL's")
def test_a_file_is_written_in_one_transaction_without_a_savepoint_per_batch(tmp_path):
    from django.test.utils import CaptureQueriesContext

    def savepoints(issues: int, name: str) -> int:
        lines = [json.dumps({"number": n, "title": f"Issue {n}", "body": "llama"}) for n in range(1, issues + 1)]
        path = _write(tmp_path / f"{name.replace('/', '-')}.jsonl", "\n".join(lines))
        with CaptureQueriesContext(connection) as queries:
            assert import_file(path, make_source(name)).created == issues
        return sum(q["sql"].startswith("SAVEPOINT") for q in queries.captured_queries)

    # Three batches take no more than one: a savepoint per batch would be a subtransaction each.
    assert savepoints(2500, "o/three") == savepoints(500, "o/one")
