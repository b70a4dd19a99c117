"""Two tabs (or a retry) submitting the same report at the same moment make one label, counted once."""
from __future__ import annotations

import threading

import pytest
from django.db import connection, connections

from annotation.models import Label, Queue
from annotation.services.labels import LabelInput, submit_label

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.mark.skipif(connection.vendor != "postgresql", reason="row locks need PostgreSQL (SQLite locks the file)")
def test_simultaneous_submissions_of_one_report_store_one_label(study, annotator_a):
    round = study.rounds.get()
    issue = study.issues.order_by("created_at", "id").first()
    gate = threading.Barrier(6)
    errors = []

    def submit(note: str) -> None:
        try:
            gate.wait()
            submit_label(annotator_a, round, issue.pk, LabelInput(is_relevant=False, note=note))
        except Exception as exc:  # noqa: BLE001 - collected and asserted on below
            errors.append(exc)
        finally:
            connections.close_all()

    threads = [threading.Thread(target=submit, args=(f"tab {n}",)) for n in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    assert Label.objects.filter(annotator=annotator_a).count() == 1
    assert Queue.objects.get(round=round, annotator=annotator_a).done == 1
    # Each submission is one version in the history: nothing was silently dropped.
    assert Label.history.filter(annotator=annotator_a).count() == 6
