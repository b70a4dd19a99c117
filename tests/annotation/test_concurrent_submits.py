"""Two tabs (or a retry) submitting the same report at the same moment make one label, counted once."""
from __future__ import annotations

from functools import partial

import pytest
from django.db import connection

from annotation.models import Label, Queue
from annotation.services.labels import LabelInput, submit_label
from tests.concurrency import at_once

pytestmark = pytest.mark.django_db(transaction=True)


def _at_once(work, args: list) -> list[Exception]:
    """Run `work(arg)` on a thread per arg, all released together; the unexpected exceptions they raised."""
    return [exc for exc in at_once(*(partial(work, arg) for arg in args)) if exc is not None]


@pytest.mark.skipif(connection.vendor != "postgresql", reason="row locks need PostgreSQL (SQLite locks the file)")
def test_simultaneous_submissions_of_one_report_store_one_label(study, annotator_a):
    round = study.rounds.get()
    issue = study.issues.order_by("created_at", "id").first()
    errors = _at_once(lambda note: submit_label(annotator_a, round, issue.pk,
                                                LabelInput(is_relevant=False, note=note)),
                      [f"tab {n}" for n in range(6)])
    assert errors == []
    assert Label.objects.filter(annotator=annotator_a).count() == 1
    assert Queue.objects.get(round=round, annotator=annotator_a).done == 1
    # Each submission is one version in the history: nothing was silently dropped.
    assert Label.history.filter(annotator=annotator_a).count() == 6


@pytest.mark.skipif(connection.vendor != "postgresql", reason="row locks need PostgreSQL (SQLite locks the file)")
def test_revisions_sent_at_once_from_one_page_store_one_and_refuse_the_others(study, annotator_a):
    """Six tabs that all showed the same label revise it at once, each differently: one revision is stored, the
    other five are told the label changed since their page showed it, and none overwrites it unseen."""
    from annotation.services.labels import LabelError, version_of
    from tests.factories import category

    round = study.rounds.get()
    issue = study.issues.order_by("created_at", "id").first()
    shown = version_of(submit_label(annotator_a, round, issue.pk, LabelInput(is_relevant=False, note="first")))
    stored, refused = [], []
    node = category("C.1.i", study.codebook)

    def revise(note: str) -> None:
        try:
            submit_label(annotator_a, round, issue.pk, LabelInput(
                type_id=node.parent.parent_id, theme_id=node.parent_id, sub_theme_id=node.pk, note=note,
                version=shown))
            stored.append(note)
        except LabelError as exc:
            refused.append(exc.field)

    errors = _at_once(revise, [f"tab {n}" for n in range(6)])
    assert errors == [] and len(stored) == 1 and refused == ["version"] * 5
    label = Label.objects.get(annotator=annotator_a)
    assert label.note == stored[0] and label.history.count() == 2
