"""Lead changes to the codebook: each with a reason and a new revision; splits and merges send back exactly
the labels that used the old categories and lose none."""
from __future__ import annotations

import pytest
from django.core.exceptions import PermissionDenied
from django.urls import reverse

from annotation.models import Assignment, Label, Queue
from annotation.services.labels import LabelError
from codebook.services import changes
from taxonomy.services import CodebookError, copy_codebook
from tests.factories import label_with

pytestmark = pytest.mark.django_db


@pytest.fixture
def own(study):
    study.codebook = copy_codebook(study.codebook, "own")
    study.save()
    return study


def _code(study, code):
    return study.codebook.categories.get(code=code)


@pytest.fixture
def labeled(own, lead, annotator_a, annotator_b):
    one, two, three = own.issues.order_by("created_at", "id")
    plan = {annotator_a: ["C.1", "C.2", "C.3"], annotator_b: ["C.1.i", "C.4", "C.2"], lead: ["A.1", "C.1", "B.1"]}
    for person, codes in plan.items():
        for issue, code in zip((one, two, three), codes, strict=True):
            label_with(person, own, issue, code, note=f"{person.username}:{code}")
    return own


def _requeued(study):
    return set(Assignment.objects.filter(queue__round__study=study, done=False).exclude(requeued_because="")
               .values_list("queue__annotator__username", "issue_id"))


def test_split_sends_back_exactly_the_labels_of_the_split_category(labeled, lead):
    c1 = _code(labeled, "C.2")
    made = changes.split(labeled, lead, c1.pk, [("GPU memory", "Out of GPU memory."), ("Host memory", "RAM.")],
                         "interviews showed two different problems")
    one, two, three = labeled.issues.order_by("created_at", "id")
    assert _requeued(labeled) == {("alice", two.pk), ("bob", three.pk)}
    assert [m.code for m in made] == ["C.11", "C.12"]
    assert Label.objects.count() == 9  # nothing lost: the old labels stay until chosen again
    change = labeled.codebook.changes.get()
    assert (change.kind, change.requeued, change.before[0]["code"]) == ("split", 2, "C.2")
    labeled.codebook.refresh_from_db()
    assert labeled.codebook.revision == 2
    done = {q.annotator.username: q.done for q in Queue.objects.all()}
    assert done == {"alice": 2, "bob": 2, "lead": 3, "charlie": 0}


def test_merge_sends_back_the_labels_of_every_merged_category(labeled, lead):
    merged = changes.merge(labeled, lead, [_code(labeled, "C.3").pk, _code(labeled, "C.4").pk], "Parallelism",
                           "Distributed and numerical", "one theme in practice")
    one, two, three = labeled.issues.order_by("created_at", "id")
    assert _requeued(labeled) == {("alice", three.pk), ("bob", two.pk)}
    assert merged.name == "Parallelism" and _code(labeled, "C.3").retired_at is not None


def test_splitting_a_theme_takes_back_the_labels_of_its_sub_themes_too(labeled, lead):
    changes.split(labeled, lead, _code(labeled, "C.1").pk, [("a", ""), ("b", "")], "why")
    one, two, three = labeled.issues.order_by("created_at", "id")
    assert _requeued(labeled) == {("alice", one.pk), ("bob", one.pk), ("lead", two.pk)}
    assert _code(labeled, "C.1.i").retired_at is not None


def test_retiring_takes_its_labels_back(labeled, lead):
    changes.retire(labeled, lead, _code(labeled, "C.1").pk, "folded into C.2")
    one, two, three = labeled.issues.order_by("created_at", "id")
    # C.1 and its sub-theme C.1.i: alice and bob on report one, the lead on report two.
    assert _requeued(labeled) == {("alice", one.pk), ("bob", one.pk), ("lead", two.pk)}
    assert _code(labeled, "C.1.i").retired_at is not None


def test_rename_and_clarify_keep_labels_and_are_logged(labeled, lead):
    changes.rename(labeled, lead, _code(labeled, "C.2").pk, "Memory and resources", "clearer")
    changes.clarify(labeled, lead, _code(labeled, "C.2").pk, "annotators asked", definition="Memory faults.",
                    exclusion="Not disk space.")
    assert _requeued(labeled) == set()
    log = list(labeled.codebook.changes.values_list("revision", "kind"))
    assert log == [(2, "rename"), (3, "clarify")]
    assert _code(labeled, "C.2").exclusion == "Not disk space."


def test_every_change_needs_a_reason_and_the_lead(labeled, lead, annotator_a):
    with pytest.raises(CodebookError, match="needs a reason"):
        changes.rename(labeled, lead, _code(labeled, "C.2").pk, "x", " ")
    with pytest.raises(PermissionDenied):
        changes.rename(labeled, annotator_a, _code(labeled, "C.2").pk, "x", "because")


def test_a_requeued_report_comes_back_with_its_old_choice_and_takes_a_new_one(labeled, lead, annotator_a,
                                                                              client_as):
    made = changes.split(labeled, lead, _code(labeled, "C.2").pk, [("GPU", "g"), ("Host", "h")], "two problems")
    one, two, three = labeled.issues.order_by("created_at", "id")
    client = client_as(annotator_a)
    page = client.get(reverse("annotation:queue", args=[labeled.pk])).content.decode()
    assert two.title in page and "C.2 was split (with its sub-themes): choose again" in page and "alice:C.2" in page
    with pytest.raises(LabelError, match="retired"):
        label_with(annotator_a, labeled, two, "C.2")
    response = client.post(reverse("annotation:label_submit", args=[labeled.pk, two.pk]),
                           {"type": made[0].parent_id, "theme": made[0].pk, "note": "GPU OOM"})
    assert response.status_code == 302
    label = Label.objects.get(annotator=annotator_a, issue=two)
    assert label.theme == made[0] and label.codebook_revision == 2
    assert label.history.count() == 2  # the old choice is in the history
    assert Queue.objects.get(annotator=annotator_a).done == 3


def test_labels_record_the_codebook_revision(own, annotator_a, lead):
    first = label_with(annotator_a, own, own.issues.first(), "C.2")
    changes.rename(own, lead, _code(own, "C.2").pk, "Memory", "shorter")
    own.codebook.refresh_from_db()  # as the next request would load it
    second = label_with(annotator_a, own, own.issues.last(), "C.2")
    assert (first.codebook_revision, second.codebook_revision) == (1, 2)
