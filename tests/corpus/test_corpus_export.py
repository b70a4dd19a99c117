"""The final corpus: one record per report with its final label and how it was reached, every individual
label, the screening verdict and summary; study.json and a dataset card; open studies say so."""
from __future__ import annotations

import csv
import io
import json

import pytest
from django.core.management import call_command
from django.urls import reverse

from annotation.models import Study
from annotation.services.phases import advance
from tests.factories import category, label_with

pytestmark = pytest.mark.django_db


def _body(response) -> str:
    return b"".join(response.streaming_content).decode() if response.streaming else response.content.decode()


@pytest.fixture
def closed(study, lead, annotator_a, annotator_b, annotator_c, client_as):
    tied, majority, other = study.issues.order_by("created_at", "id")
    people = [lead, annotator_a, annotator_b, annotator_c]
    for issue, codes in ((tied, ["A.1", "A.1", "C.1", "C.1"]), (majority, ["C.3.i", "C.3.i", "C.3.i", "C.4"]),
                         (other, ["NR", "NR", "NR", "B.1"])):
        for person, code in zip(people, codes, strict=True):
            label_with(person, study, issue, code, note=f"{person.username} note")
    advance(study, lead)
    advance(study, lead)
    client_as(lead).post(reverse("annotation:adjudicate", args=[study.pk, tied.pk]),
                         {"type": category("C").pk, "theme": category("C.1").pk, "rationale": "It crashes.",
                          "expected": "none"})
    advance(study, lead)
    study.refresh_from_db()
    return study, tied, majority, other


def test_csv_has_one_record_per_report_with_its_final_label_and_every_label(client_as, closed, lead):
    study, tied, majority, other = closed
    rows = list(csv.DictReader(io.StringIO(_body(client_as(lead).get(reverse("corpus:corpus_csv",
                                                                                args=[study.pk]))))))
    assert [r["number"] for r in rows] == [tied.number, majority.number, other.number]
    by = {r["number"]: r for r in rows}
    assert (by[tied.number]["final_theme_code"], by[tied.number]["final_how"]) == ("C.1", "lead decision")
    assert by[tied.number]["final_rationale"] == "It crashes."
    assert (by[majority.number]["final_sub_theme_code"], by[majority.number]["final_how"]) == ("C.3.i",
                                                                                                 "majority 3/4")
    assert (by[other.number]["final_type_code"], by[other.number]["final_how"]) == ("NR", "majority 3/4")
    labels = json.loads(by[tied.number]["labels"])
    assert len(labels) == 4 and {lb["annotator"] for lb in labels} == {"lead", "alice", "bob", "charlie"}
    assert labels[0]["round"] == 1 and labels[0]["note"].endswith("note") and labels[0]["codebook_revision"] == 1
    assert all(r["study_status"] == "closed" for r in rows)
    assert by[tied.number]["body"] == tied.body and by[tied.number]["screening"] in {"included", "undecided"}


def test_jsonl_carries_the_same_records(client_as, closed, lead):
    study, tied, *_ = closed
    lines = _body(client_as(lead).get(reverse("corpus:corpus_jsonl", args=[study.pk]))).splitlines()
    first = json.loads(lines[0])
    assert len(lines) == 3 and first["number"] == tied.number and first["final"]["how"] == "lead decision"
    assert len(first["labels"]) == 4


def test_study_json_has_codebook_roles_agreement_and_no_contacts_unless_asked(client_as, closed, lead, admin):
    study, *_ = closed
    lead.email = "lead@example.org"
    lead.save()
    document = json.loads(client_as(lead).get(reverse("corpus:study_json", args=[study.pk])).content)
    assert document["status"] == "closed" and document["codebook"]["types"][0]["code"] == "A"
    assert {m["username"]: m["role"] for m in document["members"]}["lead"] == "lead"
    assert "email" not in document["members"][0] and "lead@example.org" not in json.dumps(document)
    assert document["agreement"]["type"]["n_reports"] == 3 and document["final_labels"]["lead"] == 1
    with_contacts = client_as(admin).get(reverse("corpus:study_json", args=[study.pk]), {"contacts": "1"})
    assert "lead@example.org" in with_contacts.content.decode()


def test_an_open_study_says_so_in_the_file_and_on_the_page(client_as, study, lead, annotator_a):
    label_with(annotator_a, study, study.issues.first(), "C.1")
    rows = list(csv.DictReader(io.StringIO(_body(client_as(lead).get(reverse("corpus:corpus_csv",
                                                                                args=[study.pk]))))))
    assert rows[0]["study_status"].startswith("open (independent round)")
    page = client_as(lead).get(reverse("annotation:study_detail", args=[study.pk])).content.decode()
    assert 'data-testid="open-export"' in page
    card = _body(client_as(lead).get(reverse("corpus:dataset_card", args=[study.pk])))
    assert "Status: open" in card


def test_the_dataset_card_states_sources_agreement_with_n_and_how_ties_were_settled(client_as, closed, lead):
    study, *_ = closed
    card = _body(client_as(lead).get(reverse("corpus:dataset_card", args=[study.pk])))
    assert "| vllm-project/vllm | 3 |" in card
    assert "Type, Fleiss' kappa:" in card and "3 reports, 4 raters" in card
    assert "Krippendorff's alpha with the codebook's tree distance (siblings 0.333, the same type 0.667" in card
    assert "3 of 3 reports have a final label: 2 by majority, 1 by lead decision." in card


def test_annotators_cannot_export(client_as, closed, annotator_a):
    study, *_ = closed
    for name in ("corpus:corpus_csv", "corpus:corpus_jsonl", "corpus:study_json",
                 "corpus:dataset_card"):
        assert client_as(annotator_a).get(reverse(name, args=[study.pk])).status_code == 403


def test_the_command_writes_the_corpus_study_json_and_card(closed, tmp_path, capsys):
    study, *_ = closed
    call_command("export_corpus", study.name, "--format", "jsonl", "--output", str(tmp_path / "corpus.jsonl"))
    assert "3 reports (closed)" in capsys.readouterr().out
    assert len((tmp_path / "corpus.jsonl").read_text().splitlines()) == 3
    assert json.loads((tmp_path / "corpus.study.json").read_text())["study"] == study.name
    assert (tmp_path / "corpus.card.md").read_text().startswith(f"# {study.name}: dataset card")


def test_the_card_escapes_what_people_wrote_and_says_when_no_label_is_final(client_as, study, lead):
    """Raw HTML from the study's name and description went into the Markdown card, and
    an open study's card read "final label: ."."""
    Study.objects.filter(pk=study.pk).update(name="<img src=x onerror=alert(1)> study",
                                             description="Labels | <script>alert(2)</script>")
    card = _body(client_as(lead).get(reverse("corpus:dataset_card", args=[study.pk])))
    assert "<img" not in card and "<script>" not in card
    assert "# &lt;img src=x onerror=alert(1)&gt; study: dataset card" in card
    assert "Labels \\| &lt;script&gt;alert(2)&lt;/script&gt;" in card
    assert "final label: ." not in card and "None of the 3 reports has a final label yet" in card
