"""Removing a member keeps their labels and closes their queue; an admin deactivates an account."""
from __future__ import annotations

import pytest
from django.core.exceptions import PermissionDenied
from django.urls import reverse

from annotation.models import Assignment, Label, Membership, Queue
from annotation.selectors.phases import missing_labels
from annotation.services.studies import StudyError, deactivate, remove_member
from codebook.selectors import tally
from codebook.services.proposals import open_proposal
from tests.factories import label_with

pytestmark = pytest.mark.django_db


def test_a_removed_member_keeps_their_labels_and_leaves_their_queue(study, lead, annotator_a, annotator_b,
                                                                     annotator_c):
    one, *_ = study.issues.order_by("created_at", "id")
    label_with(annotator_c, study, one, "C.1", note="charlie's")
    proposal = open_proposal(study, annotator_a, parent_id=study.codebook.categories.get(code="C").pk,
                             name="Tokenizers", definition="Wrong tokens.", example_ids=[one.pk])
    round = study.rounds.get(number=1)
    assert remove_member(study, lead, annotator_c.pk) == 2
    assert not Membership.objects.filter(study=study, user=annotator_c).exists()
    assert Label.objects.get(annotator=annotator_c).note == "charlie's"  # kept, and still counted
    queue = Queue.objects.get(round=round, annotator=annotator_c)
    assert (queue.done, queue.total) == (1, 1) and Assignment.objects.filter(queue=queue).count() == 1
    assert "charlie" not in [m.username for m in missing_labels(round)]
    # The proposal's electorate was fixed when it opened: charlie's vote is still awaited (the lead may let it
    # lapse), as for anyone who left.
    assert tally(proposal).pending == 4
    with pytest.raises(StudyError, match="removed already"):
        remove_member(study, lead, annotator_c.pk)
    with pytest.raises(StudyError, match="keeps its lead"):
        remove_member(study, lead, lead.pk)
    with pytest.raises(PermissionDenied):
        remove_member(study, annotator_a, annotator_b.pk)


def test_the_members_page_removes_and_an_admin_deactivates(study, lead, admin, annotator_b, client_as):
    client = client_as(lead)
    page = client.get(reverse("annotation:members", args=[study.pk])).content.decode()
    assert "Remove bob from the study" in page and "Deactivate" not in page
    response = client.post(reverse("annotation:member_remove", args=[study.pk, annotator_b.pk]), follow=True)
    assert "bob is no longer a member" in response.content.decode()
    response = client.post(reverse("annotation:member_remove", args=[study.pk, annotator_b.pk]), follow=True)
    assert "removed already" in response.content.decode()
    assert client.post(reverse("annotation:member_deactivate", args=[study.pk, lead.pk])).status_code in (403, 404)
    admin_client = client_as(admin)
    charlie = study.memberships.get(user__username="charlie").user
    response = admin_client.post(reverse("annotation:member_deactivate", args=[study.pk, charlie.pk]), follow=True)
    charlie.refresh_from_db()
    assert "charlie can no longer log in" in response.content.decode() and not charlie.is_active
    with pytest.raises(StudyError, match="your own"):
        deactivate(admin, admin)
    with pytest.raises(PermissionDenied):
        deactivate(lead, charlie)
