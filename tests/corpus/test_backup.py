"""export_study and import_study: after the round trip every statistic and agreement figure is identical; a
damaged or foreign file is refused with a clear message and changes nothing."""
from __future__ import annotations

import gzip
import json

import pytest
from django.core.management import CommandError, call_command
from django.urls import reverse

from agreement.reports import agreement_figures, study_agreement
from annotation.models import Label, Study, TiedReport
from annotation.selectors.studies import agreement_round
from annotation.services.phases import advance
from codebook.services import changes
from codebook.services.proposals import cast_vote as vote
from codebook.services.proposals import open_proposal
from corpus.backup import VERSION
from corpus.exports import records
from findings.tables import as_json
from ingest.models import Issue, ScreeningSample, Source, Summary, SummaryReview
from ingest.services.screening import cast_vote, draw_stratum_sample, review_summary
from taxonomy.services import copy_codebook
from tests.factories import category, label_with, make_user

# flush (the empty "other Concord") cannot run inside a transaction on PostgreSQL.
pytestmark = pytest.mark.django_db(transaction=True)


def _figures(study) -> dict:
    figures = agreement_figures(study_agreement(agreement_round(study), resamples=200))
    corpus = [{k: v for k, v in r.items() if k != "study_status"} for r in records(study)]
    for record in corpus:
        for label in record["labels"]:
            label.pop("time")
    return {"agreement": figures, "stats": as_json(study), "corpus": corpus}


@pytest.fixture
def finished(study, lead, annotator_a, annotator_b, annotator_c, client_as):
    study.codebook = copy_codebook(study.codebook, "own")
    study.save()
    issues = list(study.issues.order_by("created_at", "id"))
    source = issues[0].source
    for issue, verdict in zip(issues, ["relevant", "relevant", "unclear"], strict=True):
        summary = Summary.objects.create(issue=issue, backend="extractive", prompt_version="1",
                                         content_hash=str(issue.pk), text=f"summary {issue.number}", verdict=verdict)
        review_summary(annotator_a, summary, sufficient=verdict != "unclear")
    sample = draw_stratum_sample(source, "relevant", (annotator_a, annotator_b, annotator_c), seed=1, fraction=1)
    for item in sample.items.all():
        cast_vote(annotator_a, item, True)
        cast_vote(annotator_b, item, item.issue_id != issues[0].pk)
    people = [lead, annotator_a, annotator_b, annotator_c]
    for issue, codes in zip(issues, (["A.1", "A.1", "C.1", "C.1"], ["C.3.i", "C.3.i", "C.3.i", "C.4"],
                                     ["NR", "NR", "B.1", "NR"]), strict=True):
        for person, code in zip(people, codes, strict=True):
            label_with(person, study, issue, code, note=f"{person.username} says {code}")
    proposal = open_proposal(study, annotator_a, parent_id=study.codebook.categories.get(code="C.1").pk,
                             name="Drift", definition="Tokens differ.", example_ids=[issues[0].pk])
    for person in people:
        vote(proposal, person, True)
    changes.apply_proposal(proposal, lead)
    from interviews.models import InterviewSession, Participant
    from interviews.services import add_quote, default_guide, save_ranking

    guide = default_guide(study)
    session = InterviewSession.objects.create(participant=Participant.objects.create(study=study, code="U1",
                                                                                     group="user"), guide=guide)
    save_ranking(session, guide.questions.get(node__code="C"), ["C.2", "C.1"])
    quote = add_quote(session, "Memory ran out at 70B.", ["C.2"], "memory matters")
    changes.rename(study, lead, study.codebook.categories.get(code="C.2").pk, "Memory", "shorter", quote=quote)
    changes.translate(study, lead, study.codebook.categories.get(code="C.2").pk, "for the volunteers",
                      language="zh-hans", texts={"name_second": "内存", "definition_second": "显存或内存不足。"})
    # Where a keyword's confidence sequence stopped its sample (carried whatever the sample's kind).
    ScreeningSample.objects.update(sequence_stop=STOP)
    # A clarification's evidence: the pair people confused, as a page of agreement figures gave it.
    study.codebook.changes.filter(kind="rename").update(evidence=EVIDENCE)
    label_with(annotator_a, study, issues[1], "C.3.ii", note="revised")
    advance(study, lead)
    advance(study, lead)
    client_as(lead).post(reverse("annotation:adjudicate", args=[study.pk, issues[0].pk]),
                         {"type": category("C", study.codebook).pk, "theme": category("C.1", study.codebook).pk,
                          "rationale": "It crashes.", "expected": "none"})
    advance(study, lead)
    study.refresh_from_db()
    return study


STOP = {"n": 2, "meets": True, "low": 0.81, "high": 1.0, "alpha": 0.05}
EVIDENCE = {"pair": ["C.1", "C.2"], "at": "theme", "level": "theme", "figures": {"reports": 2, "alpha": -0.5},
            "reports_given_both": 2, "examples": [{"ref": "vllm-project/vllm#7", "title": "OOM"}]}


def _reviews() -> list:
    return sorted(SummaryReview.objects.values_list("summary__text", "reviewer__username", "sufficient"))


def test_the_round_trip_keeps_every_figure(finished, tmp_path):
    before, reviews = _figures(finished), _reviews()
    history = Label.history.filter(study_id=finished.pk).count()
    path = tmp_path / "study.concord.gz"
    call_command("export_study", finished.name, str(path))
    # "Another Concord": an empty database.
    call_command("flush", "--no-input")
    assert not Study.objects.exists() and not Issue.objects.exists()
    call_command("import_study", str(path))
    restored = Study.objects.get(name=finished.name)
    assert restored.phase == "closed" and restored.current_round.kind == "review"
    assert _figures(restored) == before
    assert Label.history.filter(study_id=restored.pk).count() == history
    assert restored.codebook.changes.count() == 3 and restored.proposals.get().votes.count() == 4
    memory = restored.codebook.categories.get(code="C.2")
    assert (restored.codebook.second_language, memory.name_second, memory.definition_second) == (
        "zh-hans", "内存", "显存或内存不足。")
    assert Source.objects.get().samples.get().items.count() == 2
    assert _reviews() == reviews and len(reviews) == 3
    change = restored.codebook.changes.get(kind="rename")
    assert change.quote.text == "Memory ran out at 70B." and change.quote.session.answers.get().order == ["C.2", "C.1"]
    assert change.evidence == EVIDENCE
    assert ScreeningSample.objects.get().sequence_stop == STOP


def test_a_version_1_file_written_before_the_interviews_app_restores_its_interviews(finished, tmp_path):
    path, old = tmp_path / "study.gz", tmp_path / "v1.gz"
    call_command("export_study", finished.name, str(path))
    lines = [json.loads(line) for line in gzip.open(path, "rt")]
    assert lines[0]["version"] == VERSION
    assert {"interviews.quote", "interviews.participant"} <= {r["kind"] for r in lines[1:]}
    # As a Concord of version 1 wrote it: the interview records were the taxonomy app's, a tied report was a
    # review item, a final label a decision, a codebook a taxonomy (and so were the references to one), and
    # summary reviews and instructions were not carried.
    lines = [r for r in lines
             if r.get("kind") not in ("ingest.summaryreview", "annotation.queueweight")
             and not r.get("kind", "").startswith("machines.")]
    lines[0]["version"], lines[-1]["records"] = 1, len(lines) - 2
    for record in lines[1:]:
        for field in ("instructions", "instructions_revision", "instructions_seen", "seconds", "summary_experiment",
                      "summary_shown", "queue_order", "queue_order_from", "machine_votes", "type_confidence",
                      "evidence", "sequence_stop", "tree_sibling", "tree_same_type", "second_language",
                      "name_second", "definition_second", "inclusion_second", "exclusion_second", "vote_by"):
            record.get("fields", {}).pop(field, None)
        if "codebook" in record.get("fk", {}):
            record["fk"]["taxonomy"] = record["fk"].pop("codebook")
        record["kind"] = "taxonomy.taxonomy" if record["kind"] == "taxonomy.codebook" else record["kind"]
        record["kind"] = record["kind"].replace("interviews.", "taxonomy.").replace("codebook.", "taxonomy.").replace(
            "annotation.tiedreport", "annotation.reviewitem").replace("finallabel", "decision")
    with gzip.open(old, "wt") as f:
        f.write("".join(json.dumps(r) + "\n" for r in lines))
    call_command("flush", "--no-input")
    call_command("import_study", str(old))
    study = Study.objects.get(name=finished.name)
    assert TiedReport.objects.filter(round__study=study).exists()
    change = study.codebook.changes.get(kind="rename")
    assert change.quote.text == "Memory ran out at 70B." and change.quote.session.participant.code == "U1"


def test_a_version_12_file_restores_its_subsets_and_comparisons_into_findings(finished, tmp_path):
    from findings.models import ComparisonRecord, Subset

    subset = Subset.objects.create(study=finished, name="first two")
    subset.issues.set(finished.issues.order_by("pk")[:2])
    ComparisonRecord.objects.create(study=finished, by="source", level="type", figures={"p": 0.25})
    path, old = tmp_path / "study.gz", tmp_path / "v12.gz"
    call_command("export_study", finished.name, str(path))
    lines = [json.loads(line) for line in gzip.open(path, "rt")]
    assert {"findings.subset", "findings.comparisonrecord"} <= {r.get("kind") for r in lines[1:]}
    # As a Concord of version 12 wrote it: subsets and comparisons were the annotation app's.
    lines[0]["version"] = 12
    for record in lines[1:]:
        record["kind"] = record["kind"].replace("findings.", "annotation.")
    with gzip.open(old, "wt") as f:
        f.write("".join(json.dumps(r) + "\n" for r in lines))
    call_command("flush", "--no-input")
    call_command("import_study", str(old))
    restored = Subset.objects.get(study__name=finished.name)
    assert restored.name == "first two" and restored.issues.count() == 2
    assert ComparisonRecord.objects.get(study__name=finished.name).figures == {"p": 0.25}


def test_a_second_import_is_refused_because_the_study_exists(finished, tmp_path):
    path = tmp_path / "s.gz"
    call_command("export_study", finished.name, str(path))
    with pytest.raises(CommandError, match="exists already here"):
        call_command("import_study", str(path))


def _damaged(path, tmp_path, how):
    lines = gzip.open(path, "rt").read().splitlines()
    bad = tmp_path / f"{how}.gz"
    if how == "truncated":
        lines = lines[:len(lines) // 2]
    elif how == "garbled":
        lines[5] = lines[5][:20]
    elif how == "foreign":
        lines[0] = json.dumps({"format": "something-else"})
    elif how == "newer":
        lines[0] = json.dumps({"format": "concord-study", "version": 99})
    with gzip.open(bad, "wt") as f:
        f.write("\n".join(lines) + "\n")
    return bad


@pytest.mark.parametrize("how, message", [
    ("truncated", "truncated"), ("garbled", "line 6: not JSON"), ("foreign", "not a Concord study backup"),
    ("newer", "format version 99"),
])
def test_a_damaged_or_foreign_file_changes_nothing(finished, tmp_path, how, message):
    path = tmp_path / "s.gz"
    call_command("export_study", finished.name, str(path))
    call_command("flush", "--no-input")
    make_user("someone")
    with pytest.raises(CommandError, match=message):
        call_command("import_study", str(_damaged(path, tmp_path, how)))
    assert not Study.objects.exists() and not Issue.objects.exists() and not Label.objects.exists()


def test_not_gzip_at_all(tmp_path):
    path = tmp_path / "plain.txt"
    path.write_text("hello")
    with pytest.raises(CommandError, match="not a readable Concord study backup"):
        call_command("import_study", str(path))


def test_the_id_maps_stay_out_of_the_garbage_collectors_walk(finished, tmp_path, monkeypatch):
    # A map from the file's ids to the new ones holds every row restored (16 million at a million reports): one
    # of whole numbers only is never walked by a full collection; one keyed by tuples was, at every one.
    import gc

    from corpus import backup

    seen, restore = [], backup._Restore
    monkeypatch.setattr(backup, "_Restore", type("Watched", (restore,), {
        "flush": lambda self: (restore.flush(self), seen.append(self))[0]}))
    path = tmp_path / "study.concord.gz"
    call_command("export_study", finished.name, str(path))
    call_command("flush", "--no-input")
    call_command("import_study", str(path))
    ids = seen[-1].ids
    assert ids["annotation.label"] and ids["ingest.issue"]
    assert not any(gc.is_tracked(by_kind) for by_kind in ids.values())
