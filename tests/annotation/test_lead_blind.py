"""The lead labels blind: while the lead's own queue of the independent round is unfinished,
the lead sees what an annotator sees; stopping to see everything sets the lead's labels of the round aside from
agreement and final labels; the agreement page and the dataset card say who labeled blind."""
from __future__ import annotations

import re

import pytest
from django.urls import reverse

from agreement.reports import study_agreement
from annotation.models import Label
from annotation.permissions import can_view_all_labels, labels_blind
from annotation.selectors.history import label_changes
from annotation.selectors.labels import counted_in_round, counted_labels, labels_of_report, raters
from annotation.selectors.votes import current_votes
from annotation.services.labels import LabelError, stop_labeling
from annotation.services.phases import advance
from annotation.services.studies import StudyError, update_settings
from tests.factories import label_with, make_study

pytestmark = pytest.mark.django_db

CLOSED_TO_A_BLIND_LEAD = ["agreement:study_agreement", "api:study_agreement", "annotation:history",
                          "annotation:history_csv", "annotation:study_export_csv", "corpus:corpus_csv",
                          "corpus:corpus_jsonl", "corpus:study_json", "corpus:dataset_card",
                          "findings:statistics", "annotation:review_list", "api:label_history",
                          "findings:comparison", "annotation:adjudication_list", "annotation:annotators"]


@pytest.fixture
def blind(lead, annotator_a, annotator_b):
    study = make_study(lead, [annotator_a, annotator_b], n_issues=2, lead_labels_blind=True)
    first, second = study.issues.order_by("created_at", "id")
    label_with(annotator_a, study, first, "C.1", note="SECRET-NOTE-OF-ALICE")
    label_with(annotator_b, study, first, "C.2", note="SECRET-NOTE-OF-BOB")
    label_with(lead, study, first, "C.1", note="lead's own")
    return study, first, second


@pytest.mark.parametrize("name", CLOSED_TO_A_BLIND_LEAD)
def test_a_lead_labeling_blind_cannot_open_what_shows_others_labels(client_as, blind, lead, name):
    study, *_ = blind
    assert client_as(lead).get(reverse(name, args=[study.pk])).status_code == 403


def test_a_lead_labeling_blind_sees_only_their_own_labels_and_progress(client_as, blind, lead):
    study, first, _ = blind
    client = client_as(lead)
    assert [r["annotator"] for r in client.get(reverse("api:label_list", args=[study.pk])).json()["results"]] \
        == ["lead"]
    # The study page names who still has labels to give (progress counts, as annotators see theirs); no label.
    assert "SECRET-NOTE" not in client.get(reverse("annotation:study_detail", args=[study.pk])).content.decode()
    for url in (reverse("codebook:codebook", args=[study.pk]),
                reverse("annotation:issue_label", args=[study.pk, first.pk]),
                reverse("annotation:issue_list", args=[study.pk]), reverse("codebook:changelog", args=[study.pk])):
        page = client.get(url).content.decode()
        # Names as words: "bob" is also in "combobox".
        assert "SECRET-NOTE" not in page and not re.search(r"\b(alice|bob)\b(?!'s)", page), url
    page = client.get(reverse("annotation:study_detail", args=[study.pk])).content.decode()
    assert "You are labeling blind" in page and "1 of 2 labeled by you" in page


def test_the_labels_of_a_report_are_read_through_the_blind_rule(blind, lead, annotator_a, admin):
    study, first, _ = blind
    assert not labels_of_report(lead, study, first).exists()
    assert not labels_of_report(annotator_a, study, first).exists()
    assert sorted(labels_of_report(admin, study, first).values_list("note", flat=True)) == [
        "SECRET-NOTE-OF-ALICE", "SECRET-NOTE-OF-BOB", "lead's own"]
    # The labels' history too: read through the same rule, whoever calls it.
    assert len(label_changes(lead, study)) == 0 and len(label_changes(annotator_a, study)) == 0
    assert sorted(c.note_after for c in label_changes(admin, study)) == [
        "SECRET-NOTE-OF-ALICE", "SECRET-NOTE-OF-BOB", "lead's own"]


def test_finishing_the_queue_lifts_the_blind_and_freezes_the_leads_labels(client_as, blind, lead):
    study, first, second = blind
    assert labels_blind(lead, study)
    label_with(lead, study, second, "NR")
    study.refresh_from_db()
    assert not labels_blind(lead, study) and can_view_all_labels(lead, study)
    assert client_as(lead).get(reverse("agreement:study_agreement", args=[study.pk])).status_code == 200
    # Having seen the others, the lead can no longer change a label of this round.
    with pytest.raises(LabelError, match="can see the others' labels"):
        label_with(lead, study, first, "C.2")
    assert {r.username: r.blind for r in raters(study.rounds.get())} == {"alice": True, "bob": True, "lead": True}


def test_stopping_sets_the_leads_labels_aside_and_the_pages_say_so(client_as, blind, lead):
    study, first, _ = blind
    round = study.rounds.get()
    assert study_agreement(round, resamples=10).by_type.n_raters == 3
    response = client_as(lead).post(reverse("annotation:stop_labeling", args=[study.pk]),
                                    {"expected_round": 1, "confirm": "yes"}, follow=True)
    assert "set aside" in response.content.decode()
    study.refresh_from_db()
    assert can_view_all_labels(lead, study)
    assert study_agreement(round, resamples=10).by_type.n_raters == 2
    # The one-round reader the figures use counts the same labels as the general rule.
    counted = set(counted_labels(Label.objects.filter(round=round)).values_list("pk", flat=True))
    assert set(counted_in_round(round).values_list("pk", flat=True)) == counted
    assert lead.pk not in set(counted_in_round(round).values_list("annotator_id", flat=True))
    assert set(current_votes(study)[first.pk]) == {study.memberships.get(user__username=n).user_id
                                                   for n in ("alice", "bob")}
    page = client_as(lead).get(reverse("agreement:study_agreement", args=[study.pk])).content.decode()
    assert "set aside from every figure" in page and "stopped labeling" in page
    queue = client_as(lead).get(reverse("annotation:queue", args=[study.pk])).content.decode()
    assert "You stopped labeling round 1" in queue and "label-form" not in queue
    card = client_as(lead).get(reverse("corpus:dataset_card", args=[study.pk])).content.decode()
    assert "lead (lead): stopped labeling" in card and "alice: blind" in card
    # The lead's labels are kept: history and exports still hold them.
    assert study.labels.filter(annotator=lead).count() == 1
    with pytest.raises(LabelError, match="stopped labeling"):
        stop_labeling(lead, study, 1)
    # No longer in the queue of those who still have labels to give.
    advance(study, lead, confirm_missing=True, expected=("independent", 1))


def test_stopping_needs_the_expected_round_and_is_the_leads(client_as, blind, lead, annotator_a):
    study, *_ = blind
    assert client_as(annotator_a).post(reverse("annotation:stop_labeling", args=[study.pk]),
                                       {"expected_round": 1, "confirm": "yes"}).status_code == 403
    with pytest.raises(LabelError, match="no longer in independent round 7"):
        stop_labeling(lead, study, 7)
    client_as(lead).post(reverse("annotation:stop_labeling", args=[study.pk]), {"expected_round": 1})
    assert labels_blind(lead, study)  # not confirmed: nothing changed


def test_with_the_setting_off_the_lead_sees_everything_and_the_page_says_not_blind(client_as, lead, annotator_a):
    study = make_study(lead, [annotator_a], n_issues=2, lead_labels_blind=False)
    label_with(lead, study, study.issues.first(), "C.1")
    assert not labels_blind(lead, study)
    page = client_as(lead).get(reverse("agreement:study_agreement", args=[study.pk])).content.decode()
    assert "the lead, not blind" in page


def test_the_setting_is_fixed_once_the_independent_round_begins(blind, lead):
    study, *_ = blind
    with pytest.raises(StudyError, match="lead_labels_blind"):
        update_settings(study, lead, name=study.name, description="", overlap=None, pilot_fraction=0.18,
                        seed=study.seed, lead_labels_blind=False)


def test_annotators_stay_blind_whatever_the_leads_setting(blind, annotator_a):
    study, *_ = blind
    assert labels_blind(annotator_a, study) and not can_view_all_labels(annotator_a, study)


def test_a_lead_who_finished_is_sent_nothing_back_to_label_again(blind, lead, annotator_a):
    """Retiring a category sends its labels back to choose again, but not to a lead who finished the queue and
    may have seen the others' labels: that lead is no longer an independent rater of the round."""
    from annotation.models import Assignment, Queue
    from annotation.services.labels import LabelInput, submit_label
    from codebook.services.changes import retire
    from tests.factories import category

    study, first, second = blind
    label_with(lead, study, second, "C.1")
    assert not labels_blind(lead, study)  # finished: everyone's labels are open to the lead
    retire(study, lead, category("C.1", study.codebook).pk, "folded into C.2",
           expected_revision=study.codebook.revision)
    # Alice, still blind, gets her C.1 report back; the lead gets nothing and stays unable to relabel.
    assert Assignment.objects.filter(queue__annotator=annotator_a, requeued_because__gt="").count() == 1
    assert not Assignment.objects.filter(queue__annotator=lead, requeued_because__gt="").exists()
    queue = Queue.objects.get(round=study.current_round, annotator=lead)
    assert queue.done == queue.total and not labels_blind(lead, study)
    with pytest.raises(LabelError):
        submit_label(lead, study.current_round, first, LabelInput(type_id=category("C", study.codebook).pk,
                                                                  theme_id=category("C.2", study.codebook).pk))


def test_a_codebook_change_moves_no_count_a_blind_rater_sees(client_as, lead, annotator_a, annotator_b):
    """Retiring C.1 sends Bob's C.1 labels back; Alice (blind) and the lead (still labeling blind) see the round's
    progress and who has labels left exactly as before: neither may learn how many of Bob's labels used C.1."""
    from annotation.selectors.phases import missing_labels
    from annotation.selectors.queue import progress_for
    from codebook.services.changes import retire
    from tests.factories import category

    study = make_study(lead, [annotator_a, annotator_b], n_issues=4, lead_labels_blind=True)
    issues = list(study.issues.order_by("created_at", "id"))
    for issue in issues[:3]:
        label_with(annotator_b, study, issue, "C.1")
    label_with(annotator_a, study, issues[0], "C.2")
    label_with(lead, study, issues[0], "C.2")
    round = study.current_round
    before = (progress_for(annotator_a, round), missing_labels(round, lead))
    page_before = client_as(annotator_a).get(reverse("annotation:study_detail", args=[study.pk])).content.decode()
    retire(study, lead, category("C.1", study.codebook).pk, "folded into C.2",
           expected_revision=study.codebook.revision)
    assert (progress_for(annotator_a, round), missing_labels(round, lead)) == before
    page = client_as(annotator_a).get(reverse("annotation:study_detail", args=[study.pk])).content.decode()
    shown = re.compile(r"the round: \d+ of \d+")
    assert shown.search(page).group() == shown.search(page_before).group()
    # Bob himself sees his three reports back in his queue.
    assert progress_for(annotator_b, round).done == 0


def test_a_staff_lead_labeling_blind_sees_only_their_own_rows_in_the_admin(client, blind, lead, annotator_a):
    from annotation.models import Label

    study, first, second = blind
    lead.is_staff = lead.is_superuser = True
    lead.save()
    client.force_login(lead)
    listed = client.get("/admin/annotation/label/").content.decode()
    assert "SECRET-NOTE" not in listed and not re.search(r"\b(alice|bob)\b", listed)
    alices = Label.objects.get(annotator=annotator_a)
    assert client.get(f"/admin/annotation/label/{alices.pk}/change/").status_code in {302, 404}
    assert client.get(f"/admin/annotation/label/{alices.pk}/history/").status_code == 403
    queues = client.get("/admin/annotation/queue/").content.decode()
    assert not re.search(r"\b(alice|bob)\b", queues)
    own = Label.objects.get(annotator=lead)
    assert client.get(f"/admin/annotation/label/{own.pk}/history/").status_code == 200
    # Once the lead's queue is finished, the admin shows everything again.
    label_with(lead, study, second, "C.1")
    assert "alice" in client.get("/admin/annotation/label/").content.decode()
