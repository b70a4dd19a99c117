"""Machine raters travel with the study: the corpus export, study.json, the dataset card and the backup."""
from __future__ import annotations

import json

import pytest
from django.core.management import CommandError, call_command
from django.urls import reverse

from annotation.models import Label, Study
from machines.models import LlmCall, MachineLabel, MachineRater, MachineRun, ReplacementDecision
from tests.factories import label_with

pytestmark = pytest.mark.django_db


@pytest.fixture
def with_machine(study, lead, annotator_a, annotator_b):
    for issue in study.issues.all():
        label_with(annotator_a, study, issue, "C.1")
        label_with(annotator_b, study, issue, "C.1")
    rater = MachineRater.objects.create(study=study, name="qwen", kind="llm", created_by=lead,
                                        settings={"model": "qwen", "runs": 1, "base_url": "http://127.0.0.1:9/v1"})
    run = MachineRun.objects.create(rater=rater, status="succeeded", prompt="P", prompt_hash="h" * 64, done=3)
    for issue in study.issues.all():
        call = LlmCall.objects.create(rater=rater, issue=issue, key=f"k{issue.pk}", prompt_hash="h" * 64,
                                      model="qwen", answer='{"type": "C", "theme": "C.2"}', seconds=0.4)
        MachineLabel.objects.create(run=run, issue=issue, type_code="C", theme_code="C.2", call=call)
    ReplacementDecision.objects.create(rater=rater, level="type", epsilon=0.2, reason="checked", decided_by=lead,
                                       figures={"cohen_plurality": {"value": 0.9, "ci": [0.8, 1.0]}})
    return study


def _body(response) -> str:
    data = b"".join(response.streaming_content) if response.streaming else response.content
    return data.decode()


def test_the_corpus_study_json_and_dataset_card_carry_the_machines(with_machine, lead, client_as):
    study = with_machine
    client = client_as(lead)
    record = json.loads(_body(client.get(reverse("corpus:corpus_jsonl", args=[study.pk]))).splitlines()[0])
    assert record["machine_labels"] == {"qwen": "C.2"}
    assert all(lb["choice"] == "C.1" for lb in record["labels"])  # the people's labels, untouched
    document = json.loads(_body(client.get(reverse("corpus:study_json", args=[study.pk]))))
    (rater,) = document["machines"]["raters"]
    assert rater["name"] == "qwen" and len(rater["calls"]) == 3 and rater["calls"][0]["seconds"] == 0.4
    assert document["machines"]["decisions"][0]["reason"] == "checked"
    card = _body(client.get(reverse("corpus:dataset_card", args=[study.pk])))
    assert "## Machine raters" in card and "qwen" in card and "may replace one annotator at type" in card
    csv = _body(client.get(reverse("corpus:corpus_csv", args=[study.pk])))
    assert "machine_labels" in csv.splitlines()[0]


@pytest.mark.django_db(transaction=True)  # the restore is checked on an emptied database (flush)
def test_a_backup_restores_raters_runs_calls_labels_and_decisions(with_machine, tmp_path):
    path = tmp_path / "study.gz"
    call_command("export_study", with_machine.name, str(path))
    counts = {m: m.objects.count() for m in (MachineRater, MachineRun, LlmCall, MachineLabel, ReplacementDecision)}
    call_command("flush", "--no-input")
    call_command("import_study", str(path))
    study = Study.objects.get(name=with_machine.name)
    assert {m: m.objects.count() for m in counts} == counts
    label = MachineLabel.objects.select_related("call", "run__rater").first()
    assert label.run.rater.study == study and label.call.answer == '{"type": "C", "theme": "C.2"}'
    assert ReplacementDecision.objects.get().decided_by.username == "lead"
    assert Label.objects.filter(study=study).count() == 6


def _restorable(study, path, tmp_path, change=lambda rater: None):
    """The study's backup, renamed so that it restores beside the original, with its rater's record changed."""
    import gzip

    call_command("export_study", study.name, str(path))
    lines = [json.loads(line) for line in gzip.open(path, "rt", encoding="utf-8")]
    lines[0]["study"] = "Restored"
    next(r for r in lines if r.get("kind") == "annotation.study")["fields"]["name"] = "Restored"
    change(next(r for r in lines if r.get("kind") == "machines.machinerater"))
    edited = tmp_path / "edited.gz"
    with gzip.open(edited, "wt", encoding="utf-8") as f:
        f.writelines(json.dumps(line) + "\n" for line in lines)
    return edited


@pytest.mark.parametrize("raw, words", [
    ({"model": "qwen", "runs": 1000000, "base_url": "http://127.0.0.1:9/v1"}, ["runs", "1000000"]),
    ({"model": "qwen", "base_url": "file:///etc/passwd"}, ["base_url", "http"]),
    ({"model": "q" * 201, "base_url": "http://127.0.0.1:9/v1"}, ["model"]),
    ({"model": "qwen", "endpoint": "e" * 101}, ["endpoint"]),
    ([1, 2], ["settings"]),
])
def test_a_restored_raters_settings_meet_the_forms_limits(with_machine, tmp_path, raw, words):
    edited = _restorable(with_machine, tmp_path / "study.gz", tmp_path,
                         lambda rater: rater["fields"].update(settings=raw))
    raters = MachineRater.objects.count()
    with pytest.raises(CommandError) as refused:
        call_command("import_study", str(edited))
    message = str(refused.value)
    assert "line " in message and "machines.machinerater field 'settings'" in message, message
    assert all(w in message for w in words), message
    assert not Study.objects.filter(name="Restored").exists() and MachineRater.objects.count() == raters


def test_a_restored_rater_keeps_its_endpoint_and_prompt_version(with_machine, tmp_path):
    MachineRater.objects.filter(name="qwen").update(settings={"endpoint": "elsewhere", "model": "qwen",
                                                              "prompt_version": "2025-10-1"})
    call_command("import_study", str(_restorable(with_machine, tmp_path / "study.gz", tmp_path)))
    assert MachineRater.objects.get(study__name="Restored").settings == {
        "endpoint": "elsewhere", "model": "qwen", "temperature": None, "seed": None, "runs": 1,
        "prompt_version": "2025-10-1"}


def test_the_panel_of_labels_is_built_only_for_a_study_with_machines(study, with_machine, monkeypatch):
    """The people's labels are held as a panel (a Python object per label: 1.2 GB at a million reports × 7)
    only where a machine rater's figures or a decision need them, and then once."""
    from machines import exports

    built = []
    real = exports.panel
    monkeypatch.setattr(exports, "panel", lambda s: built.append(s.pk) or real(s))
    plain = Study.objects.create(name="No machines", codebook=study.codebook, created_by=study.created_by)
    assert exports.study_machines(plain)["raters"] == [] and built == []
    document = exports.study_machines(with_machine)
    assert len(document["raters"]) == 1 and len(document["decisions"]) == 1 and built == [with_machine.pk]
