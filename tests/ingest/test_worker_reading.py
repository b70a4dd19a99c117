"""Worker processes read a line's bytes straight into orjson when nothing in it needs the careful path (decoding,
NUL replacement, the standard library's parser). Whatever the line, they must give what the careful path gives:
the same record, or the same refusal naming the same line and field."""
from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ingest import parallel
from ingest.importers import ImportFileError, jsonl
from tests.hostile.corpus import ISSUE_CASES


def _outcomes(records) -> list:
    """Each record, or the first refusal's message, in order."""
    out = []
    try:
        for record in records:
            out.append(record)
    except ImportFileError as exc:
        out.append(str(exc))
    return out


def _both_ways(tmp_path, content: bytes, name: str = "f.jsonl"):
    path = tmp_path / name
    path.write_bytes(content)
    careful = _outcomes(jsonl.read(path))
    chunk = (str(path), name, 1, 0, len(content))
    return careful, _outcomes(parallel._records(chunk))


@pytest.mark.parametrize("case", [c for c in ISSUE_CASES if c.name.endswith(".jsonl")], ids=lambda c: c.id)
def test_every_hostile_file_is_refused_alike(case, tmp_path):
    careful, fast = _both_ways(tmp_path, case.content, case.name)
    assert fast == careful
    assert isinstance(careful[-1], str) and all(part in careful[-1] for part in case.expect)


GOOD = {"number": 7, "title": "t", "body": "b", "user": {"login": "a"}, "created_at": "2024-05-01T12:00:00Z"}
# Pieces that take a line off the fast path, or that the two parsers could read differently.
PIECES = ["plain", "\x00", "\\u0000", "\\ud800", "\\udc00x", "\\ud83d\\ude00", "é", "大模型", "\u2028", "\ufeff",
          "\\\\", '\\"', "1" * 19, "\t", "\r", " ", "\\n"]


def _line(title: str, number, extra: str) -> bytes:
    return (json.dumps({**GOOD, "number": number}, ensure_ascii=False)[:-1]
            + f', "title": "{title}"{extra}}}').encode("utf-8", "surrogatepass")


@pytest.fixture(params=["hyperscan", "plain"])
def line_checks(request, monkeypatch):
    """The fast path's checks of a line, by Hyperscan where it is built and by plain searches elsewhere."""
    if request.param == "plain":
        monkeypatch.setattr(jsonl, "_line_scanner", lambda: None)
    elif jsonl._line_scanner() is None:
        pytest.skip("Hyperscan is not built for this processor")


# The fixture's choice holds for every example.
@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    titles=st.lists(st.lists(st.sampled_from(PIECES), max_size=4).map("".join), min_size=1, max_size=4),
    number=st.sampled_from([7, "I8SLI3", 12345678901234567890123, -1, 2**63, "", None]),
    extra=st.sampled_from(["", ', "labels": [1]', ', "pull_request": {}', ', "comments": 2', ", ", "]"]),
    prefix=st.sampled_from([b"", b"\xef\xbb\xbf", b"  ", b"\xc3\x28", b"\xed\xa0\x80", b"\n", "\u3000\n".encode()]),
)
def test_any_line_reads_alike(line_checks, tmp_path_factory, titles, number, extra, prefix):
    content = prefix + b"\n".join(_line(title, number, extra) for title in titles) + b"\n"
    careful, fast = _both_ways(tmp_path_factory.mktemp("lines"), content)
    assert fast == careful


@settings(max_examples=500, deadline=None)
@given(st.lists(st.one_of(st.sampled_from([p.encode("utf-8", "surrogatepass") for p in PIECES]
                                          + [b"\\u0000", b"\\uD9ff", b"\\udBFF", b"\\uDc", b"0" * 18, b"9" * 40]),
                          st.binary(max_size=8)), max_size=12).map(b"".join))
def test_hyperscan_sends_down_the_careful_path_exactly_the_lines_the_plain_checks_do(raw):
    if jsonl._line_scanner() is None:
        pytest.skip("Hyperscan is not built for this processor")
    found = jsonl._line_scanner().found(raw)
    careful = b"\x00" in raw or b"\\u0000" in raw or b"0" * 19 in raw.translate(jsonl._DIGITS_ONLY)
    assert any(i != jsonl._ESCAPE for i in found) == careful
    assert (jsonl._ESCAPE in found) == bool(jsonl.SURROGATE_ESCAPE.search(raw.decode("latin-1")))
