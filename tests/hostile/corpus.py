"""A corpus of hostile files, one per class of fault, for every importer.

Each case is a file's name and bytes, the importer it is fed to, and what the refusal must name: the file and
line (or JSON path) and the field. Files are made here rather than kept as fixtures because several are large
(100,000 levels of nesting, a 200 KiB cell) or must hold bytes no editor keeps (invalid UTF-8, a cut gzip);
`python -m tests.hostile.corpus DIR` writes them out for trying by hand.
"""
from __future__ import annotations

import gzip
import json
import sys
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Case:
    importer: str  # issues, labels, codebook, keywords, backup, interviews
    name: str
    content: bytes
    expect: tuple[str, ...]  # each must appear in the message

    @property
    def id(self) -> str:
        return f"{self.importer}-{self.name}"


GOOD = {"number": 1, "title": "A good issue", "body": "Fine.", "html_url": "https://github.com/o/r/issues/1",
        "user": {"login": "alice"}, "state": "open", "labels": [], "created_at": "2024-05-01T12:00:00Z"}


def _jsonl(*records) -> bytes:
    return "\n".join(r if isinstance(r, str) else json.dumps(r) for r in records).encode() + b"\n"


def _bad(**fields) -> dict:
    return {**GOOD, "number": 2, **fields}


def _gz(data: bytes) -> bytes:
    return gzip.compress(data, mtime=0)


DEEP = "[" * 100_000 + "]" * 100_000
HUGE_INT = "1" + "0" * 25  # past 64 bits
ISSUE_CASES = [
    # Values longer than their column.
    Case("issues", "number-too-long.jsonl", _jsonl(GOOD, _bad(number="9" * 33)), ("number-too-long.jsonl:2", "number:", "at most 32")),
    Case("issues", "url-too-long.jsonl", _jsonl(GOOD, _bad(html_url="https://github.com/" + "a" * 600)), ("url-too-long.jsonl:2", "url:", "at most 500")),
    Case("issues", "author-too-long.jsonl", _jsonl(GOOD, _bad(user={"login": "a" * 201})), ("author-too-long.jsonl:2", "author:", "at most 200")),
    Case("issues", "state-too-long.jsonl", _jsonl(GOOD, _bad(state="o" * 33)), ("state-too-long.jsonl:2", "state:", "at most 32")),
    Case("issues", "title-too-long.jsonl", _jsonl(GOOD, _bad(title="t" * 1001)), ("title-too-long.jsonl:2", "title:", "at most 1,000")),
    Case("issues", "number-too-long.csv", b"number,title\n1,ok\n" + b"9" * 40 + b",long\n", ("number-too-long.csv:3", "number:", "at most 32")),
    Case("issues", "author-too-long.json", json.dumps([GOOD, _bad(user={"login": "b" * 300})]).encode(), ("author-too-long.json:1", "author:")),
    Case("issues", "author-too-long-gh.json", json.dumps([{"number": 1, "title": "x", "author": {"login": "c" * 300}, "createdAt": "2024-01-01T00:00:00Z"}]).encode(), ("author-too-long-gh.json:1", "author:")),
    # Impossible dates.
    Case("issues", "february-30.jsonl", _jsonl(GOOD, _bad(created_at="2024-02-30T00:00:00Z")), ("february-30.jsonl:2", "created_at:", "not a real date-time")),
    Case("issues", "month-13.jsonl", _jsonl(GOOD, _bad(closed_at="2024-13-01T00:00:00Z")), ("month-13.jsonl:2", "closed_at:")),
    Case("issues", "year-0.jsonl", _jsonl(GOOD, _bad(updated_at="0000-01-01T00:00:00Z")), ("year-0.jsonl:2", "updated_at:")),
    Case("issues", "year-1-east-of-utc.jsonl", _jsonl(GOOD, _bad(created_at="0001-01-01T00:00:00+01:00")), ("year-1-east-of-utc.jsonl:2", "created_at:", "before year 1 in UTC")),
    Case("issues", "year-9999-west-of-utc.jsonl", _jsonl(GOOD, _bad(closed_at="9999-12-31T23:00:00-02:00")), ("year-9999-west-of-utc.jsonl:2", "closed_at:", "after 9999")),
    Case("issues", "before-1970.jsonl", _jsonl(GOOD, _bad(created_at="1969-12-31T23:59:59Z")), ("before-1970.jsonl:2", "created_at:", "before 1970")),
    Case("issues", "date-a-number.jsonl", _jsonl(GOOD, _bad(created_at=20240501)), ("date-a-number.jsonl:2", "created_at:", "expected an ISO 8601")),
    Case("issues", "february-30.csv", b"number,title,created_at\n1,ok,2024-02-01T00:00:00Z\n2,bad,2024-02-30T00:00:00Z\n", ("february-30.csv:3", "created_at:")),
    # Text PostgreSQL cannot store.
    Case("issues", "lone-surrogate-title.jsonl", _jsonl(GOOD, '{"number": 2, "title": "bad \\ud800 title"}'), ("lone-surrogate-title.jsonl:2", "title:", "lone surrogate")),
    Case("issues", "lone-surrogate-body.jsonl", _jsonl(GOOD, '{"number": 2, "title": "t", "body": "x\\udfff"}'), ("lone-surrogate-body.jsonl:2", "body:", "lone surrogate")),
    Case("issues", "lone-surrogate-extra.jsonl", _jsonl(GOOD, '{"number": 2, "title": "t", "milestone": {"title": "\\ud83d"}}'), ("lone-surrogate-extra.jsonl:2", "milestone.title:", "lone surrogate")),
    Case("issues", "lone-surrogate-label.json", b'[{"number": 2, "title": "t", "labels": [{"name": "\\udc00"}]}]', ("lone-surrogate-label.json:1", "labels", "lone surrogate")),
    Case("issues", "lone-surrogate-key.jsonl", _jsonl(GOOD, '{"number": 2, "title": "t", "\\ud800": 1}'), ("lone-surrogate-key.jsonl:2", "lone surrogate")),
    Case("issues", "invalid-utf8.jsonl", _jsonl(GOOD) + b'{"number": 2, "title": "\xff\xfe"}\n', ("invalid-utf8.jsonl:2", "not UTF-8")),
    Case("issues", "invalid-utf8.json", b'[{"number": 2, "title": "\xc3\x28"}]', ("invalid-utf8.json:1", "not UTF-8")),
    Case("issues", "invalid-utf8.csv", b"number,title\n1,ok\n2,\xff\n", ("invalid-utf8.csv", "not UTF-8")),
    Case("issues", "nul-in-number.jsonl", _jsonl(GOOD, _bad(number="12\x00")), ("nul-in-number.jsonl:2", "number:")),
    Case("issues", "control-in-number.csv", b"number,title\n1\x07,bell\n", ("control-in-number.csv:2", "number:", "control character")),
    # Numbers past 64 bits, or past the column.
    Case("issues", "comments-past-64-bits.jsonl", _jsonl(GOOD, f'{{"number": 2, "title": "t", "comments": {HUGE_INT}}}'), ("comments-past-64-bits.jsonl:2", "comments:", "out of range")),
    Case("issues", "comments-past-32-bits.jsonl", _jsonl(GOOD, _bad(comments=2**31)), ("comments-past-32-bits.jsonl:2", "comments:", "out of range")),
    Case("issues", "number-past-64-bits.jsonl", _jsonl(GOOD, f'{{"number": {HUGE_INT}, "title": "t"}}'), ("number-past-64-bits.jsonl:2", "number:")),
    Case("issues", "number-of-5000-digits.jsonl", _jsonl(GOOD, '{"number": ' + "7" * 5000 + ', "title": "t"}'), ("number-of-5000-digits.jsonl:2", "not usable JSON")),
    Case("issues", "comments-huge.csv", b"number,title,comments\n1,ok," + b"9" * 30 + b"\n", ("comments-huge.csv:2", "comments:", "not a count")),
    Case("issues", "comments-superscript.csv", "number,title,comments\n1,ok,²\n".encode(), ("comments-superscript.csv:2", "comments:")),
    # Shapes.
    Case("issues", "nested-100000-deep.jsonl", _jsonl(GOOD, '{"number": 2, "title": "t", "x": ' + DEEP + "}"), ("nested-100000-deep.jsonl:2", "nested too deeply")),
    Case("issues", "nested-100000-deep.json", ("[" + DEEP + "]").encode(), ("nested-100000-deep.json:1", "nested too deeply")),
    Case("issues", "record-not-an-object.jsonl", _jsonl(GOOD, "[1, 2]"), ("record-not-an-object.jsonl:2", "expected a JSON object")),
    Case("issues", "record-a-string.jsonl", _jsonl(GOOD, '"just text"'), ("record-a-string.jsonl:2", "expected a JSON object")),
    Case("issues", "record-null.json", b"[null]", ("record-null.json:1", "expected a JSON object")),
    Case("issues", "title-an-object.jsonl", _jsonl(GOOD, _bad(title={"a": 1})), ("title-an-object.jsonl:2", "title:", "expected text")),
    Case("issues", "labels-an-object.jsonl", _jsonl(GOOD, _bad(labels={"name": "bug"})), ("labels-an-object.jsonl:2", "labels:", "expected a list")),
    Case("issues", "user-a-number.jsonl", _jsonl(GOOD, _bad(user=7)), ("user-a-number.jsonl:2", "user:")),
    Case("issues", "comment-not-an-object.jsonl", _jsonl(GOOD, _bad(comments=["hi"])), ("comment-not-an-object.jsonl:2", "comments[0]")),
    Case("issues", "not-json.jsonl", _jsonl(GOOD, '{"number": 2, "title": '), ("not-json.jsonl:2", "not valid JSON")),
    Case("issues", "cut-short.json", json.dumps([GOOD, _bad()]).encode()[:-40], ("cut-short.json", "not valid JSON")),
    Case("issues", "an-object-not-an-array.json", b'{"number": 1}', ("an-object-not-an-array.json:1", "title: missing")),
    Case("issues", "neither-json-nor-csv.txt", b"number: 1\ntitle: x\n", ("neither-json-nor-csv.txt", "cannot tell the format")),
    Case("issues", "empty-array-file.json", b"", ("empty-array-file.json", "format")),
    Case("issues", "number-missing.jsonl", _jsonl(GOOD, {"title": "no number"}), ("number-missing.jsonl:2", "number: missing")),
    Case("issues", "title-missing.csv", b"number,body\n1,no title column\n", ("title-missing.csv:1", "missing column")),
    Case("issues", "unterminated-quote.csv", b'number,title,body\n1,ok,fine\n2,"never closed,body\n3,three,body\n4,four,body\n', ("unterminated-quote.csv:3", "never closed")),
]

LONG_HEADER = b"report,annotator,label,note\n"
URL = b"https://github.com/o/r/issues/"
LABEL_CASES = [
    Case("labels", "final-label-with-a-space.csv", b"Issue_URL,Label1,Label2,Final Label\n" + URL + b"1,C.1,C.1,C.1\n", ("final-label-with-a-space.csv:1", "'Final Label'")),
    Case("labels", "stray-column.csv", b"Issue_URL,Label1,Comments\n" + URL + b"1,C.1,looks fine\n", ("stray-column.csv:1", "'Comments'")),
    Case("labels", "no-rater-columns.csv", b"Issue_URL,Final_Label\n" + URL + b"1,C.1\n", ("no-rater-columns.csv:1", "no rater columns")),
    Case("labels", "short-row-long-layout.csv", LONG_HEADER + URL + b"1\n", ("short-row-long-layout.csv:2", "annotator and a label")),
    Case("labels", "nul-in-note.csv", LONG_HEADER + URL + b"1,alice,C.1,bad \x00 note\n", ("nul-in-note.csv:2", "column note", "NUL")),
    Case("labels", "cell-over-128-kib.csv", LONG_HEADER + URL + b"1,alice,C.1,\"" + b"n" * 200_000 + b"\"\n", ("cell-over-128-kib.csv:2", "more than 131,072 characters")),
    Case("labels", "annotator-too-long.csv", LONG_HEADER + URL + b"1," + b"a" * 151 + b",C.1,\n", ("annotator-too-long.csv:2", "column annotator", "at most 150")),
    Case("labels", "annotator-not-a-username.csv", LONG_HEADER + URL + b"1,Final Label,C.1,\n", ("annotator-not-a-username.csv:2", "column annotator", "cannot be a username")),
    Case("labels", "annotator-with-nul.csv", LONG_HEADER + URL + b"1,al\x00ice,C.1,\n", ("annotator-with-nul.csv:2", "column annotator", "NUL")),
    Case("labels", "report-number-too-long.csv", LONG_HEADER + URL + b"1" * 40 + b",alice,C.1,\n", ("report-number-too-long.csv:2", "column report", "at most 32")),
    Case("labels", "external-id-too-long.csv", LONG_HEADER + b"x" * 40 + b",alice,C.1,\n", ("external-id-too-long.csv:2", "column report", "at most 32")),
    Case("labels", "repository-too-long.csv", LONG_HEADER + b"https://github.com/" + b"o" * 150 + b"/" + b"r" * 100 + b"/issues/1,alice,C.1,\n", ("repository-too-long.csv:2", "column report", "at most 200")),
    Case("labels", "unknown-code.csv", LONG_HEADER + URL + b"1,alice,Z.9,\n", ("unknown-code.csv:2", "column label", "'Z.9'")),
    Case("labels", "unterminated-quote.csv", LONG_HEADER + URL + b"1,alice,C.1,\"open\n" + URL + b"2,bob,C.1,\n", ("unterminated-quote.csv:2", "never closed")),
    Case("labels", "invalid-utf8.csv", LONG_HEADER + URL + b"1,alice,C.1,\xff\xfe\n", ("invalid-utf8.csv:2", "not UTF-8")),
    Case("labels", "invalid-utf8-far-down.csv", LONG_HEADER + b"".join(URL + b"%d,alice,C.1,note\n" % n for n in range(1, 3001)) + URL + b"1,bob,C.1,\xe4\xb8\n", ("invalid-utf8-far-down.csv:3002", "not UTF-8")),
    Case("labels", "invalid-utf8-far-down.csv.gz", _gz(LONG_HEADER + b"".join(URL + b"%d,alice,C.1,\xe4\xb8\xad\n" % n for n in range(1, 3001)) + URL + b"1,bob,C.1,\xff\n"), ("invalid-utf8-far-down.csv.gz:3002", "not UTF-8")),
    Case("labels", "not-gzip.csv.gz", b"report,annotator,label\n", ("not-gzip.csv.gz", "not a gzip file")),
    Case("labels", "cut-short.csv.gz", _gz(LONG_HEADER + (URL + b"1,alice,C.1,note\n") * 200)[:-30], ("cut-short.csv.gz", "cut short")),
    Case("labels", "empty.csv", b"", ("empty.csv:1", "empty")),
    Case("labels", "no-report-column.csv", b"annotator,label\nalice,C.1\n", ("no-report-column.csv:1", "no report column")),
]

CODEBOOK = {"name": "Hostile codebook", "version": "1", "types": [
    {"code": "A", "name": "Question", "themes": [{"code": "A.1", "name": "Install", "sub_themes": [
        {"code": "A.1.i", "name": "Environment"}]}]}]}


def _codebook(**changes) -> bytes:
    data = json.loads(json.dumps(CODEBOOK))
    for path, value in changes.items():
        node = data
        *parents, last = path.split("__")
        for part in parents:
            node = node[int(part)] if part.isdigit() else node[part]
        node[int(last) if last.isdigit() else last] = value
    return json.dumps(data).encode()


CODEBOOK_CASES = [
    Case("codebook", "code-too-long.json", _codebook(types__0__themes__0__code="A." + "1" * 40), ("code-too-long.json", "types[0].themes[0]", "code:", "at most 32")),
    Case("codebook", "name-too-long.json", _codebook(types__0__name="Q" * 301), ("name-too-long.json", "types[0]", "name:", "at most 300")),
    Case("codebook", "version-too-long.json", _codebook(version="v" * 301), ("version-too-long.json", "version:", "at most 300")),
    Case("codebook", "codebook-name-too-long.json", _codebook(name="N" * 201), ("codebook-name-too-long.json", "name:", "at most 200")),
    Case("codebook", "nul-in-definition.json", _codebook(types__0__definition="a\x00b"), ("nul-in-definition.json", "types[0]", "definition:", "NUL")),
    Case("codebook", "definition-a-list.json", _codebook(types__0__definition=["x"]), ("definition-a-list.json", "types[0]", "definition:", "expected text")),
    Case("codebook", "lone-surrogate-name.json", _codebook(types__0__themes__0__sub_themes__0__name="\ud800"), ("lone-surrogate-name.json", "sub_themes[0]", "name:", "lone surrogate")),
    Case("codebook", "nested-100000-deep.json", ('{"name": "x", "types": ' + DEEP + "}").encode(), ("nested-100000-deep.json", "nested too deeply")),
    Case("codebook", "invalid-utf8.json", b'{"name": "\xff", "types": []}', ("invalid-utf8.json", "not UTF-8")),
    Case("codebook", "type-not-an-object.json", _codebook(types__0="A"), ("type-not-an-object.json", "types[0]", "must be an object")),
    Case("codebook", "top-level-a-list.json", b"[1, 2]", ("top-level-a-list.json", "top level")),
    Case("codebook", "source-a-number.json", _codebook(source=12), ("source-a-number.json", "source:", "expected text")),
    Case("codebook", "duplicate-codes.json", _codebook(types__0__themes__0__code="A"), ("duplicate-codes.json", "duplicate category codes")),
    Case("codebook", "number-of-5000-digits.json", b'{"name": "x", "version": ' + b"9" * 5000 + b', "types": []}', ("number-of-5000-digits.json", "not usable JSON")),
]

KEYWORD_CASES = [
    Case("keywords", "term-too-long.json", json.dumps({"name": "Hostile list", "keywords": ["t" * 201]}).encode(), ("term-too-long.json", "keywords[0]: term:", "at most 200")),
    Case("keywords", "name-too-long.json", json.dumps({"name": "n" * 201, "keywords": ["ok"]}).encode(), ("name-too-long.json", "name:", "at most 200")),
    Case("keywords", "entry-a-number.json", json.dumps({"name": "Hostile list", "keywords": [7]}).encode(), ("entry-a-number.json", "keywords[0]")),
    Case("keywords", "invalid-utf8.json", b'{"name": "\xff", "keywords": []}', ("invalid-utf8.json", "not UTF-8")),
    Case("keywords", "nested-100000-deep.json", ('{"name": "x", "keywords": ' + DEEP + "}").encode(), ("nested-100000-deep.json", "nested too deeply")),
    Case("keywords", "nul-in-term.json", json.dumps({"name": "Hostile list", "keywords": ["a\x00b"]}).encode(), ("nul-in-term.json", "keywords[0]: term:", "NUL")),
    Case("keywords", "source-a-list.json", json.dumps({"name": "Hostile list", "source": [], "keywords": []}).encode(), ("source-a-list.json", "source:", "expected text")),
    Case("keywords", "origin-unhashable.json", json.dumps({"name": "Hostile list", "keywords": [{"term": "x", "origin": {"a": 1}}]}).encode(), ("origin-unhashable.json", "keywords[0]: origin:")),
]

BACKUP_CASES = [
    Case("backup", "not-gzip.jsonl.gz", b'{"kind": "header"}\n', ("not-gzip.jsonl.gz", "not a readable Concord study backup")),
    Case("backup", "cut-short.jsonl.gz", _gz(b'{"format": "concord-study", "version": 1, "study": "Cut"}\n' + b'{"kind": "' + b"a" * 200_000 + b'"}\n')[:-50], ("cut-short.jsonl.gz", "not a readable Concord study backup")),
    Case("backup", "nested-100000-deep.jsonl.gz", _gz(DEEP.encode() + b"\n"), ("nested-100000-deep.jsonl.gz", "line 1", "nested too deeply")),
    Case("backup", "record-not-an-object.jsonl.gz", _gz(b"[1, 2]\n"), ("record-not-an-object.jsonl.gz", "line 1")),
    Case("backup", "invalid-utf8.jsonl.gz", _gz(b'{"kind": "\xff"}\n'), ("invalid-utf8.jsonl.gz", "not a readable")),
    Case("backup", "unknown-format.jsonl.gz", _gz(b'{"format": "concord-study", "version": 99}\n'), ("unknown-format.jsonl.gz", "line 1")),
]

INTERVIEW_HEADER = b"Participant,Type,Experience Level,Framework Context,Prompt Category,Thematic Quote,Linked Taxonomy Node(s),Research Insight\n"
INTERVIEW_CASES = [
    Case("interviews", "participant-too-long.csv", INTERVIEW_HEADER + b"U" * 21 + b",User,Beginner,PyTorch,P,A quote,C.1,\n", ("participant-too-long.csv:2", "code:", "at most 20")),
    Case("interviews", "frameworks-too-long.csv", INTERVIEW_HEADER + b"U1,User,Beginner," + b"f" * 301 + b",P,A quote,C.1,\n", ("frameworks-too-long.csv:2", "frameworks:", "at most 300")),
    Case("interviews", "nul-in-quote.csv", INTERVIEW_HEADER + b"U1,User,Beginner,PyTorch,P,A \x00 quote,C.1,\n", ("nul-in-quote.csv:2", "text:", "NUL")),
    Case("interviews", "unterminated-quote.csv", INTERVIEW_HEADER + b'U1,User,Beginner,PyTorch,P,"never closed,C.1,\n', ("unterminated-quote.csv", "unexpected end of data")),
    Case("interviews", "invalid-utf8.csv", INTERVIEW_HEADER + b"U1,\xff\n", ("invalid-utf8.csv", "UTF-8")),
    Case("interviews", "roles-version-number.csv", b"Roles,Experience Years for LLMs,Responsibilities\nUser - x,1.2.3 years,t\n" + b"Developer," + b"9" * 400 + b" years,t\nDeveloper - " + b"r" * 301 + b",1 year,t\n", ("roles-version-number.csv:4", "role:", "at most 300")),
]

CASES = ISSUE_CASES + LABEL_CASES + CODEBOOK_CASES + KEYWORD_CASES + BACKUP_CASES + INTERVIEW_CASES


def write(case: Case, folder: Path) -> Path:
    path = folder / case.importer / case.name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(case.content)
    return path


if __name__ == "__main__":
    out = Path(sys.argv[1] if len(sys.argv) > 1 else "hostile-files")
    for case in CASES:
        write(case, out)
    print(f"{len(CASES)} files under {out}/")
