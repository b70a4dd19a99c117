"""The replication package: what it holds, and a script that recomputes every figure from
the package's own files with Python, numpy and statsmodels alone — in a process that cannot import Concord."""
from __future__ import annotations

import csv
import io
import json
import os
import random
import struct
import subprocess
import sys
import zipfile

import pytest
from django.core.management import call_command
from django.urls import reverse

from tests.factories import label_with, make_issue, make_study, make_user

pytestmark = pytest.mark.django_db
CODES = ["A.1", "B.1", "B.2", "C.1", "C.1.i", "C.2", "C.6.iv", "NR"]


@pytest.fixture
def labeled():
    lead = make_user("lead")
    people = [make_user(f"r{n}") for n in range(4)]
    issues = [make_issue() for _ in range(40)]
    study = make_study(lead, people, issues=issues, name="Replicated")
    pick = random.Random(8)
    for issue in issues:
        truth = pick.choice(CODES)
        for person in people:
            if pick.random() < 0.9:  # some reports miss a rater: alpha and Gwet's forms use them
                label_with(person, study, issue, truth if pick.random() < 0.7 else pick.choice(CODES))
    return study, lead


def _run(folder):
    # -I: isolated, so neither this project nor its settings are importable; only numpy and statsmodels.
    return subprocess.run([sys.executable, "-I", "recompute.py"], cwd=folder, capture_output=True, text=True,
                          timeout=120)


def test_the_package_recomputes_every_figure_from_its_own_files(labeled, tmp_path):
    study, lead = labeled
    path = tmp_path / "package.zip"
    call_command("replication_package", study.name, str(path), stdout=io.StringIO())
    with zipfile.ZipFile(path) as archive:
        names = set(archive.namelist())
        archive.extractall(tmp_path / "package")
    for name in ("README.md", "corpus.csv", "corpus.jsonl", "study.json", "dataset-card.md", "codebook/codebook.json",
                 "codebook/changes.json", "labels/labels.csv", "labels/history.csv", "reliability/report.json",
                 "reliability/report.md", "reliability/labels.csv", "screening.json", "recompute.py",
                 f"codebook/revisions/revision-{study.codebook.revision}.json"):
        assert name in names, name
    folder = tmp_path / "package"
    report = json.loads((folder / "reliability" / "report.json").read_text())
    assert set(report["levels"]) == {"theme", "sub_theme"} and report["concord"]
    result = _run(folder)
    assert result.returncode == 0, result.stdout + result.stderr
    last = next(line for line in result.stdout.splitlines() if line.endswith("figures match."))
    matched, total = int(last.split()[0]), int(last.split()[2])
    assert matched == total >= 30 and "DIFFERS" not in result.stdout
    assert "traced to labels/labels.csv: every one the same" in result.stdout
    assert "Not recomputed here: the bootstrap intervals, the machine raters' figures" in result.stdout
    # Every counted label names its report as the rest of the package does, never by a database id.
    counted = list(csv.DictReader(open(folder / "reliability" / "labels.csv", newline="")))
    urls = {(row["source"], row["number"]): row["url"]
            for row in csv.DictReader(open(folder / "labels" / "labels.csv", newline=""))}
    assert all(row["report"] == f"{row['source']}#{row['number']}" and urls[(row["source"], row["number"])] ==
               row["url"] for row in counted)

    # One label changed in labels/labels.csv only: the trace says which, and the script fails.
    original = (folder / "labels" / "labels.csv").read_text()
    rows = list(csv.DictReader(open(folder / "labels" / "labels.csv", newline="")))
    target = next(i for i, row in enumerate(rows) if row["round_kind"] == "independent" and row["relevant"] == "yes")
    rows[target]["type_code"] = "A" if rows[target]["type_code"] != "A" else "B"
    with open(folder / "labels" / "labels.csv", "w", newline="") as f:
        writer = csv.DictWriter(f, list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    changed = _run(folder)
    assert changed.returncode == 1 and f"{rows[target]['source']}#{rows[target]['number']} by " \
        f"{rows[target]['annotator']}: counted as" in changed.stdout
    (folder / "labels" / "labels.csv").write_text(original)

    # One label changed in the package: the script says which figures no longer match.
    rows = list(csv.DictReader(open(folder / "reliability" / "labels.csv", newline="")))
    rows[0]["type"] = "A" if rows[0]["type"] != "A" else "B"
    with open(folder / "reliability" / "labels.csv", "w", newline="") as f:
        writer = csv.DictWriter(f, list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    tampered = _run(folder)
    assert tampered.returncode == 1 and "DIFFERS" in tampered.stdout


def test_the_lead_downloads_it_and_an_annotator_may_not(labeled, client_as):
    study, lead = labeled
    response = client_as(lead).get(reverse("corpus:replication_package", args=[study.pk]))
    assert response.status_code == 200 and response["Content-Type"] == "application/zip"
    archive = zipfile.ZipFile(io.BytesIO(b"".join(response.streaming_content)))
    assert "recompute.py" in archive.namelist()
    annotator = study.memberships.filter(role="annotator").first().user
    assert client_as(annotator).get(reverse("corpus:replication_package", args=[study.pk])).status_code == 403


@pytest.mark.skipif(not os.environ.get("CONCORD_FRESH_VENV"),
                    reason="installs numpy and statsmodels in a new virtual environment (CI sets CONCORD_FRESH_VENV=1)")
def test_the_script_runs_in_a_fresh_virtual_environment_with_numpy_and_statsmodels_alone(labeled, tmp_path):
    study, _ = labeled
    path = tmp_path / "package.zip"
    call_command("replication_package", study.name, str(path), stdout=io.StringIO())
    zipfile.ZipFile(path).extractall(tmp_path / "package")
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=120)
    subprocess.run([str(venv / "bin" / "python"), "-m", "pip", "install", "--quiet", "numpy", "statsmodels"],
                   check=True, timeout=600)
    result = subprocess.run([str(venv / "bin" / "python"), "recompute.py"], cwd=tmp_path / "package",
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "DIFFERS" not in result.stdout and "figures match." in result.stdout


def test_the_codebook_at_every_revision_undoes_the_changes_one_by_one():
    from corpus.replication import codebook_revisions

    now = [{"code": "C", "name": "Bug", "live": True}, {"code": "C.1", "name": "Memory (OOM)", "live": True},
           {"code": "C.2", "name": "Shapes", "live": False}, {"code": "C.3", "name": "Shapes: dtype", "live": True},
           {"code": "C.4", "name": "Shapes: rank", "live": True}, {"code": "C.5", "name": "Drift", "live": True}]
    changes = [
        {"revision": 1, "kind": "add", "before": [], "after": [{"code": "C.5", "name": "Drift"}]},
        {"revision": 2, "kind": "split", "before": [{"code": "C.2", "name": "Shapes"}],
         "after": [{"code": "C.3", "name": "Shapes: dtype"}, {"code": "C.4", "name": "Shapes: rank"}]},
        {"revision": 3, "kind": "rename", "before": [{"code": "C.1", "name": "Memory"}],
         "after": [{"code": "C.1", "name": "Memory (OOM)"}]},
    ]
    revisions = codebook_revisions(now, changes)
    names = {r: {c["code"]: c["name"] for c in cats} for r, cats in revisions.items()}
    assert names[3] == {"C": "Bug", "C.1": "Memory (OOM)", "C.3": "Shapes: dtype", "C.4": "Shapes: rank",
                        "C.5": "Drift"}
    assert names[2] == {**names[3], "C.1": "Memory"}
    assert names[1] == {"C": "Bug", "C.1": "Memory", "C.2": "Shapes", "C.5": "Drift"}
    assert names[0] == {"C": "Bug", "C.1": "Memory", "C.2": "Shapes"}
    assert next(c for c in revisions[0] if c["code"] == "C.2")["parent"] == "C"


def test_raters_named_like_formulas_are_neutralised_and_still_traced(tmp_path):
    lead = make_user("lead")
    people = [make_user(name) for name in ("=HYPERLINK", "@sum", "-minus", "+plus")]
    issues = [make_issue() for _ in range(12)]
    study = make_study(lead, people, issues=issues, name="Formulas")
    pick = random.Random(3)
    for issue in issues:
        for person in people:
            label_with(person, study, issue, pick.choice(CODES))
    path = tmp_path / "package.zip"
    call_command("replication_package", study.name, str(path), stdout=io.StringIO())
    with zipfile.ZipFile(path) as archive:
        archive.extractall(tmp_path / "package")
    folder = tmp_path / "package"
    counted = list(csv.DictReader(open(folder / "reliability" / "labels.csv", newline="")))
    assert {row["rater"] for row in counted} == {"'=HYPERLINK", "'@sum", "'-minus", "'+plus"}
    assert not any(cell.startswith(("=", "+", "-", "@")) for row in counted for cell in row.values())
    result = _run(folder)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "traced to labels/labels.csv: every one the same" in result.stdout


def test_the_command_writes_for_a_person_with_the_rights_the_page_asks(labeled, tmp_path):
    from django.core.management import CommandError

    study, lead = labeled
    annotator = study.memberships.filter(role="annotator").first().user
    with pytest.raises(CommandError) as refused:
        call_command("replication_package", study.name, str(tmp_path / "p.zip"), username=annotator.username)
    assert "may not export" in str(refused.value) and not (tmp_path / "p.zip").exists()
    call_command("replication_package", study.name, str(tmp_path / "p.zip"), username=lead.username,
                 stdout=io.StringIO())
    assert (tmp_path / "p.zip").exists()


def test_an_open_samples_votes_stay_out_of_the_package_until_it_is_decided(labeled, tmp_path):
    from ingest.models import ScreeningItem, ScreeningSample, ScreeningVote

    study, lead = labeled
    issue = study.issues.first()
    screener, other, third = make_user("screener"), make_user("other"), make_user("third")
    samples = {status: ScreeningSample.objects.create(kind=ScreeningSample.Kind.STRATUM, status=status,
                                                      source=issue.source, seed=1, stratum="relevant",
                                                      reviewer_a=screener, reviewer_b=other, tiebreaker=third)
               for status in (ScreeningSample.Status.OPEN, ScreeningSample.Status.CLOSED)}
    for sample in samples.values():
        item = ScreeningItem.objects.create(sample=sample, issue=issue, position=0)
        ScreeningVote.objects.create(item=item, reviewer=screener, is_relevant=True, note=f"said in {sample.status}")
    path = tmp_path / "package.zip"
    call_command("replication_package", study.name, str(path), stdout=io.StringIO())
    with zipfile.ZipFile(path) as archive:
        text = archive.read("screening.json").decode()
    screening = {s["status"]: s for s in json.loads(text)}
    assert screening["open"]["items"][0]["votes"] is None and "said in open" not in text
    assert screening["closed"]["items"][0]["votes"][0]["note"] == "said in closed"


def _local_extra_ids(path, name: str) -> list[int]:
    """The ids of the extra fields in a member's local header (0x0001: ZIP64 sizes)."""
    with zipfile.ZipFile(path) as archive, open(path, "rb") as f:
        offset = archive.getinfo(name).header_offset
        f.seek(offset)
        name_length, extra_length = struct.unpack("<HH", f.read(30)[26:30])
        f.seek(offset + 30 + name_length)
        extra = f.read(extra_length)
    ids, at = [], 0
    while at + 4 <= len(extra):
        header_id, size = struct.unpack("<HH", extra[at:at + 4])
        ids.append(header_id)
        at += 4 + size
    return ids


def test_the_streamed_files_can_grow_past_what_a_plain_zip_header_holds(labeled, tmp_path):
    """The corpus of a million reports is some 5 GB, and zipfile refuses a streamed member past 2 GiB unless it
    wrote ZIP64 headers for it from the start: each streamed member has them, and the package still reads."""
    study = labeled[0]
    path = tmp_path / "package.zip"
    call_command("replication_package", study.name, str(path), stdout=io.StringIO())
    for name in ("corpus.csv", "corpus.jsonl", "labels/labels.csv", "reliability/labels.csv", "labels/history.csv"):
        assert 0x0001 in _local_extra_ids(path, name), name
    with zipfile.ZipFile(path) as archive:
        assert archive.testzip() is None


def test_a_keyword_stopped_by_its_sequence_is_recomputed_from_its_votes(labeled, tmp_path):
    from ingest.models import Keyword, KeywordList, ScreeningSample
    from ingest.services.screening import cast_vote, draw_keyword_sample

    study, _lead = labeled
    source = study.issues.first().source
    keyword_list = KeywordList.objects.create(name="filter")
    keyword = keyword_list.keywords.create(term="report", status=Keyword.Status.CANDIDATE)
    source.keyword_list = keyword_list
    source.save(update_fields=["keyword_list"])
    a, b, c = make_user("scr-a"), make_user("scr-b"), make_user("scr-c")
    sample = draw_keyword_sample(keyword, (a, b, c), seed=3, size=40)
    for n, item in enumerate(sample.items.order_by("position")):
        sample.refresh_from_db()
        if sample.status != ScreeningSample.Status.OPEN:
            break
        cast_vote(a, item, n % 4 == 0)
        cast_vote(b, item, n % 4 == 0 or n % 7 == 0)
        if n % 7 == 0 and n % 4:
            cast_vote(c, item, False)
    sample.refresh_from_db()
    assert sample.status == "rejected" and sample.sequence_stop["n"] < 40
    path = tmp_path / "package.zip"
    call_command("replication_package", study.name, str(path), stdout=io.StringIO())
    with zipfile.ZipFile(path) as archive:
        archive.extractall(tmp_path / "p")
    card = (tmp_path / "p" / "dataset-card.md").read_text()
    assert "## Keyword validation" in card and "Rule: the keyword is accepted the first time" in card
    assert "| report | rejected | " in card and f"| {sample.sequence_stop['n']} of 40 verdicts (below 0.8) |" in card
    result = _run(tmp_path / "p")
    assert result.returncode == 0, result.stdout + result.stderr
    stop = f"verdicts read when the sequence cleared 0.8: {sample.sequence_stop['n']}"
    assert "matches  screening report, rate" in result.stdout and stop in result.stdout
    # A vote changed in the package shows.
    screening = tmp_path / "p" / "screening.json"
    samples = json.loads(screening.read_text())
    samples[0]["items"][0]["votes"] = [dict(v, relevant=not v["relevant"]) for v in samples[0]["items"][0]["votes"]]
    screening.write_text(json.dumps(samples))
    assert _run(tmp_path / "p").returncode == 1
