"""The study's method as phases: pilot on a seeded sample, independent round, review of ties, adjudication."""
from __future__ import annotations

import math

import pytest
from django.core.exceptions import PermissionDenied
from django.urls import reverse

from annotation.models import Assignment, Label, Queue, Round, Study, TiedReport
from annotation.selectors.phases import next_step
from annotation.services.labels import LabelError, LabelInput, submit_label
from annotation.services.phases import PhaseError, advance
from annotation.services.studies import create_study
from tests.factories import codebook, label_with, make_issue

pytestmark = pytest.mark.django_db
Phase = Study.Phase


def _study(lead, annotators, n=20, **options):
    options = {"with_pilot": True, "seed": 7, **options}
    return create_study(name=f"Phased {options}", codebook=codebook(), issues=[make_issue() for _ in range(n)],
                        lead=lead, annotators=annotators, **options)


def _queue_issues(study, user, kind):
    return list(Assignment.objects.filter(queue__round__study=study, queue__round__kind=kind, queue__annotator=user)
                .order_by("position").values_list("issue_id", flat=True))


def test_the_pilot_is_the_leads_alone_on_a_seeded_sample(lead, annotator_a):
    study = _study(lead, [annotator_a], n=50)
    assert study.phase == Phase.PILOT and study.rounds.get().kind == Round.Kind.PILOT
    sample = _queue_issues(study, lead, Round.Kind.PILOT)
    assert len(sample) == math.ceil(0.18 * 50)
    assert not Queue.objects.filter(annotator=annotator_a).exists()
    with pytest.raises(PermissionDenied, match="Only the lead labels during the pilot"):
        submit_label(annotator_a, study.rounds.get(), sample[0], LabelInput(is_relevant=False))
    # The same seed over the same reports draws the same sample.
    again = create_study(name="Same seed", codebook=study.codebook, issues=study.issues.all(), lead=lead,
                         with_pilot=True, seed=7)
    assert _queue_issues(again, lead, Round.Kind.PILOT) == sample


def test_after_the_pilot_everyone_including_the_lead_labels_every_report(lead, annotator_a, annotator_b):
    study = _study(lead, [annotator_a, annotator_b], n=10)
    advance(study, lead, confirm_missing=True)
    study.refresh_from_db()
    independent = study.rounds.get(kind=Round.Kind.INDEPENDENT)
    assert study.phase == Phase.INDEPENDENT and independent.number == 2 and independent.is_open
    assert not study.rounds.get(kind=Round.Kind.PILOT).is_open
    all_ids = list(study.issues.order_by("created_at", "id").values_list("id", flat=True))
    for person in (lead, annotator_a, annotator_b):
        assert _queue_issues(study, person, Round.Kind.INDEPENDENT) == all_ids


def test_overlap_k_gives_each_report_k_annotators_and_even_workloads(lead, annotator_a, annotator_b, annotator_c):
    study = _study(lead, [annotator_a, annotator_b, annotator_c], n=30, with_pilot=False, overlap=2)
    queues = Queue.objects.filter(round__study=study)
    assert sorted(q.total for q in queues) == [15, 15, 15, 15]
    per_issue = {}
    for issue_id in Assignment.objects.filter(queue__in=queues).values_list("issue_id", flat=True):
        per_issue[issue_id] = per_issue.get(issue_id, 0) + 1
    assert set(per_issue.values()) == {2} and len(per_issue) == 30


def test_closing_a_round_with_missing_labels_needs_confirmation_and_says_whose(lead, annotator_a, annotator_b):
    study = _study(lead, [annotator_a, annotator_b], n=3, with_pilot=False)
    issues = list(study.issues.order_by("created_at", "id"))
    for issue in issues:
        label_with(lead, study, issue, "C.1")
    label_with(annotator_a, study, issues[0], "C.1")
    with pytest.raises(PhaseError) as refused:
        advance(study, lead)
    assert str(refused.value).startswith("5 labels are still missing in round 1 (alice 2, bob 3)")
    study.refresh_from_db()
    assert study.phase == Phase.INDEPENDENT and study.rounds.get().is_open
    advance(study, lead, confirm_missing=True)
    study.refresh_from_db()
    assert study.phase == Phase.REVIEW


def test_the_study_page_shows_missing_labels_and_refuses_without_confirmation(client_as, lead, annotator_a):
    study = _study(lead, [annotator_a], n=2, with_pilot=False)
    client = client_as(lead)
    page = client.get(reverse("annotation:study_detail", args=[study.pk])).content.decode()
    assert "still have labels to give in round 1" in page and "alice 2" in page and "lead 2" in page
    shown = {"expected_phase": "independent", "expected_round": 1}
    response = client.post(reverse("annotation:study_advance", args=[study.pk]), shown, follow=True)
    assert "4 labels are still missing" in response.content.decode()
    assert Study.objects.get(pk=study.pk).phase == Phase.INDEPENDENT
    client.post(reverse("annotation:study_advance", args=[study.pk]), {"confirm": "yes", **shown})
    assert Study.objects.get(pk=study.pk).phase == Phase.REVIEW


def test_only_the_lead_or_an_admin_moves_the_study_on(client_as, lead, annotator_a, admin):
    study = _study(lead, [annotator_a], n=2)
    with pytest.raises(PermissionDenied):
        advance(study, annotator_a, confirm_missing=True)
    assert client_as(annotator_a).post(reverse("annotation:study_advance", args=[study.pk])).status_code == 403
    advance(study, admin, confirm_missing=True)
    assert Study.objects.get(pk=study.pk).phase == Phase.INDEPENDENT


def test_review_takes_the_tied_reports_and_keeps_independent_labels_apart(lead, annotator_a, annotator_b,
                                                                          annotator_c):
    study = _study(lead, [annotator_a, annotator_b, annotator_c], n=3, with_pilot=False)
    tied, theme_tie, agreed = study.issues.order_by("created_at", "id")
    # Votes of the lead, alice, bob and charlie: 2 A against 2 C; C.1 and C.2 twice each; 3 C.1 to 1 C.2.
    votes = {tied: ["A.1", "A.2", "C.1", "C.2"], theme_tie: ["C.1", "C.1", "C.2", "C.2"],
             agreed: ["C.1", "C.1", "C.1", "C.2"]}
    people = [lead, annotator_a, annotator_b, annotator_c]
    for issue, codes in votes.items():
        for person, code in zip(people, codes, strict=True):
            label_with(person, study, issue, code)
    advance(study, lead)
    review = study.rounds.get(kind=Round.Kind.REVIEW)
    items = {item.issue_id: item.levels for item in TiedReport.objects.filter(round=review)}
    assert items == {tied.pk: ["type"], theme_tie.pk: ["theme"]}
    # A re-label in review is a label of the review round; the independent one stays as it was.
    label_with(annotator_b, study, theme_tie, "C.1", round=review, note="convinced by the thread")
    independent = study.rounds.get(kind=Round.Kind.INDEPENDENT)
    assert Label.objects.get(round=independent, annotator=annotator_b, issue=theme_tie).code == "C.2"
    assert Label.objects.get(round=review, annotator=annotator_b, issue=theme_tie).code == "C.1"
    with pytest.raises(LabelError, match="not in your queue"):
        label_with(annotator_b, study, agreed, "C.1", round=review)


def test_review_and_adjudication_lead_to_a_closed_study(lead, annotator_a):
    study = _study(lead, [annotator_a], n=2, with_pilot=False)
    for issue in study.issues.all():
        label_with(lead, study, issue, "C.1")
        label_with(annotator_a, study, issue, "C.1")
    for phase in (Phase.REVIEW, Phase.ADJUDICATION, Phase.CLOSED):
        study = advance(study, lead, confirm_missing=True)
        assert study.phase == phase
    assert not study.rounds.filter(closed_at__isnull=True).exists()
    with pytest.raises(PhaseError, match="closed"):
        advance(study, lead)


def test_labels_of_a_closed_round_cannot_change(lead, annotator_a):
    study = _study(lead, [annotator_a], n=1, with_pilot=False)
    issue = study.issues.get()
    label_with(annotator_a, study, issue, "C.1")
    advance(study, lead, confirm_missing=True)
    with pytest.raises(LabelError, match="closed"):
        label_with(annotator_a, study, issue, "C.2", round=study.rounds.get(kind=Round.Kind.INDEPENDENT))


def test_a_double_submit_makes_one_label_and_counts_the_report_once(lead, annotator_a):
    study = _study(lead, [annotator_a], n=2, with_pilot=False)
    issue = study.issues.order_by("created_at", "id").first()
    label_with(annotator_a, study, issue, "C.1")
    label_with(annotator_a, study, issue, "C.1")
    label_with(annotator_a, study, issue, "C.2", note="second thoughts")
    assert Label.objects.filter(annotator=annotator_a).count() == 1
    assert Queue.objects.get(annotator=annotator_a).done == 1
    # The identical second submission stored no version of its own: history has the first and the revision.
    assert Label.history.filter(annotator=annotator_a).count() == 2


def test_pilot_lead_may_add_categories_to_the_studys_own_codebook(client_as, lead, annotator_a):
    from taxonomy.services import copy_codebook

    study = _study(lead, [annotator_a], n=5)
    study.codebook = copy_codebook(study.codebook, "own copy")
    study.save()
    parent = study.codebook.categories.get(code="C.1")
    client = client_as(lead)
    client.post(reverse("codebook:category_add", args=[study.pk]),
                {"parent": parent.pk, "name": "Tokenizer drift", "definition": "Tokens differ between versions.",
                 "revision": study.codebook.revision})
    added = study.codebook.categories.get(name="Tokenizer drift")
    assert added.code == f"C.1.{['i', 'ii', 'iii', 'iv', 'v', 'vi', 'vii', 'viii'][parent.children.count() - 1]}"
    assert not codebook().categories.filter(name="Tokenizer drift").exists()  # the original is untouched
    # Annotators may not, and after the pilot nobody may (proposals and votes take over).
    client_as(annotator_a).post(reverse("codebook:category_add", args=[study.pk]), {"parent": parent.pk,
                                                                                     "name": "Sneaky", "revision": 2})
    advance(study, lead, confirm_missing=True)
    response = client.post(reverse("codebook:category_add", args=[study.pk]),
                           {"parent": parent.pk, "name": "Too late", "revision": 2}, follow=True)
    assert "grows only through a proposal" in response.content.decode()
    assert not study.codebook.categories.filter(name__in=["Sneaky", "Too late"]).exists()


def test_large_queues_are_written_with_copy_on_postgresql(lead, annotator_a, monkeypatch):
    from annotation.services import queues

    # The COPY path starts above BATCH reports; a small BATCH takes it with a small study.
    monkeypatch.setattr(queues, "BATCH", 2)
    study = _study(lead, [annotator_a], n=5, with_pilot=False)
    assert Queue.objects.get(round__study=study, annotator=annotator_a).total == 5
    assert Assignment.objects.filter(queue__round__study=study, requeued_because="").count() == 10



def test_each_step_is_named_for_what_it_does_and_needs_a_confirmation(client_as, lead, annotator_a):
    """No single click closes a round or the study, and no button reads "Start closed"."""
    study = _study(lead, [annotator_a], n=2, with_pilot=False)
    client = client_as(lead)
    detail = reverse("annotation:study_detail", args=[study.pk])
    for button, said in (("Close round 1 and start the review", "4 labels are still missing in round 1"),
                         ("Close the review and start adjudication", "The review round closes.")):
        study.refresh_from_db()
        page = client.get(detail).content.decode()
        assert f'<button type="submit" class="primary">{button}</button>' in page and said in page
        shown = {"expected_phase": study.phase, "expected_round": study.current_round.number}
        response = client.post(reverse("annotation:study_advance", args=[study.pk]), shown, follow=True)
        assert f"Nothing changed: tick the box to confirm. {said}" in response.content.decode()
        assert Study.objects.get(pk=study.pk).phase == study.phase
        client.post(reverse("annotation:study_advance", args=[study.pk]), {"confirm": "yes", **shown})
        assert Study.objects.get(pk=study.pk).phase != study.phase
    study.refresh_from_db()
    study.phase = Phase.ADJUDICATION
    last = next_step(study, None, [])
    assert last.button == "Close the study and write the final labels" and "cannot" not in last.button
    assert "nothing can be labeled or changed after" in last.consequences[0]


@pytest.mark.parametrize("back", ["-1", "annotation:queue", "//evil.example/x", "https://evil.example/", "x/y"])
def test_the_pilot_forms_next_goes_only_to_a_path_of_this_site(client_as, lead, annotator_a, back):
    study = _study(lead, [annotator_a], n=5)
    response = client_as(lead).post(reverse("codebook:category_add", args=[study.pk]),
                                    {"parent": "x", "name": "n", "revision": 1, "next": back})
    assert response.status_code == 302 and response["Location"] == reverse("annotation:queue", args=[study.pk])
    ok = client_as(lead).post(reverse("codebook:category_add", args=[study.pk]),
                              {"parent": "x", "name": "n", "revision": 1, "next": f"/studies/{study.pk}/"})
    assert ok["Location"] == f"/studies/{study.pk}/"
