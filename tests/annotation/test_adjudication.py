"""Adjudication: the lead decides what the votes leave tied; a closed study has one final label per report
and says how each was reached."""
from __future__ import annotations

import pytest
from django.urls import reverse

from annotation.models import FinalLabel, Round, Study
from annotation.selectors.votes import needing_decision
from annotation.services.phases import PhaseError, advance
from tests.factories import category, label_with

pytestmark = pytest.mark.django_db


@pytest.fixture
def adjudicating(study, lead, annotator_a, annotator_b, annotator_c):
    """Four raters on three reports: a 2–2 type tie the review leaves tied, a 2–2 theme tie the review
    settles, and a 3–1 majority."""
    stays_tied, settles, majority = study.issues.order_by("created_at", "id")
    people = [lead, annotator_a, annotator_b, annotator_c]
    for issue, codes in ((stays_tied, ["A.1", "A.1", "C.1", "C.1"]), (settles, ["C.1", "C.1", "C.2", "C.2"]),
                         (majority, ["C.3.i", "C.3.i", "C.3.i", "C.4"])):
        for person, code in zip(people, codes, strict=True):
            label_with(person, study, issue, code, note=f"{person.username} on {issue.number}")
    advance(study, lead)  # → review
    review = study.rounds.get(kind=Round.Kind.REVIEW)
    label_with(annotator_b, study, settles, "C.1", round=review)  # 3 C.1 to 1 C.2 now
    advance(study, lead)  # → adjudication
    study.refresh_from_db()
    return study, stays_tied, settles, majority


def test_only_the_reports_still_tied_wait_for_the_lead(adjudicating, client_as, lead):
    study, stays_tied, settles, majority = adjudicating
    assert needing_decision(study) == {stays_tied.pk: ["type"]}
    page = client_as(lead).get(reverse("annotation:adjudication_list", args=[study.pk])).content.decode()
    assert stays_tied.title in page and settles.title not in page.split("Your decisions")[0]


def test_the_study_cannot_close_before_the_tie_is_decided(adjudicating, lead):
    study, *_ = adjudicating
    with pytest.raises(PhaseError, match="1 reports still need the lead's decision"):
        advance(study, lead)
    assert Study.objects.get(pk=study.pk).phase == Study.Phase.ADJUDICATION


def test_the_decision_page_shows_every_label_and_note_and_records_the_rationale(adjudicating, client_as, lead):
    study, stays_tied, *_ = adjudicating
    client = client_as(lead)
    url = reverse("annotation:adjudicate", args=[study.pk, stays_tied.pk])
    page = client.get(url).content.decode()
    for name in ("lead", "alice", "bob", "charlie"):
        assert f"{name} on {stays_tied.number}" in page
    refused = client.post(url, {"type": category("C").pk, "theme": category("C.1").pk, "rationale": "",
                                "expected": "none"})
    assert refused.status_code == 400 and not FinalLabel.objects.exists()
    client.post(url, {"type": category("C").pk, "theme": category("C.1").pk, "rationale": "A crash: a bug.",
                       "expected": "none"})
    decision = FinalLabel.objects.get(issue=stays_tied)
    assert (decision.code, decision.method, decision.rationale, decision.decided_by) == (
        "C.1", "lead", "A crash: a bug.", lead)


def test_closing_gives_every_report_its_final_label_and_how_it_was_reached(adjudicating, client_as, lead):
    study, stays_tied, settles, majority = adjudicating
    client_as(lead).post(reverse("annotation:adjudicate", args=[study.pk, stays_tied.pk]),
                         {"type": category("A").pk, "theme": category("A.1").pk, "rationale": "Asks how to.",
                          "expected": "none"})
    advance(study, lead)
    finals = {d.issue_id: d for d in FinalLabel.objects.filter(study=study)}
    assert len(finals) == study.issues.count() == 3
    assert (finals[stays_tied.pk].how, finals[stays_tied.pk].code) == ("lead decision", "A.1")
    assert (finals[settles.pk].how, finals[settles.pk].code) == ("consensus after review", "C.1")
    assert (finals[majority.pk].how, finals[majority.pk].code) == ("majority 3/4", "C.3.i")
    assert FinalLabel.history.filter(study=study).count() == 3
    # The most votes without more than half is a plurality, and says so.
    two_of_four = FinalLabel(method=FinalLabel.Method.MAJORITY, support=2, raters=4)
    three_of_five = FinalLabel(method=FinalLabel.Method.MAJORITY, support=3, raters=5)
    assert (two_of_four.how, three_of_five.how) == ("plurality 2/4", "majority 3/5")


def test_annotators_cannot_adjudicate(adjudicating, client_as, annotator_a):
    study, stays_tied, *_ = adjudicating
    client = client_as(annotator_a)
    assert client.get(reverse("annotation:adjudication_list", args=[study.pk])).status_code == 403
    response = client.post(reverse("annotation:adjudicate", args=[study.pk, stays_tied.pk]),
                           {"type": category("C").pk, "theme": category("C.1").pk, "rationale": "mine",
                            "expected": "none"})
    assert response.status_code == 403 and not FinalLabel.objects.exists()


def test_per_type_agreement_uses_the_final_type_once_decided(adjudicating, client_as, lead):
    from agreement.reports import study_agreement

    study, stays_tied, *_ = adjudicating
    before = {t.type.code: t.fleiss.n_reports for t in study_agreement(study.rounds.get(number=1), resamples=10)
              .per_type}
    assert before["C"] == 2 and before["A"] == 0  # the tied report has no plurality type
    client_as(lead).post(reverse("annotation:adjudicate", args=[study.pk, stays_tied.pk]),
                         {"type": category("A").pk, "theme": category("A.1").pk, "rationale": "Asks how to.",
                          "expected": "none"})
    after = study_agreement(study.rounds.get(number=1), resamples=10)
    assert {t.type.code: t.fleiss.n_reports for t in after.per_type}["A"] == 1
