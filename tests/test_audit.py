"""The audit log: the events that matter are recorded with who, what and when; the chain of hashes catches an
entry changed, removed or put in between; the admins read it on a page and as CSV; retention keeps it whole."""
from __future__ import annotations

import csv
import io
from datetime import timedelta

import pytest
from django.core.management import CommandError, call_command
from django.urls import reverse
from django.utils import timezone

from annotation.services.phases import advance
from concord.audit import broken_links, record
from concord.models import AuditEntry
from tests.factories import label_with, make_study

pytestmark = pytest.mark.django_db


def test_the_events_that_matter_are_recorded(client, lead, annotator_a, annotator_b):
    from annotation.services.invitations import accept, invite
    from annotation.services.labels import stop_labeling

    study = make_study(lead, [annotator_a, annotator_b], n_issues=2, lead_labels_blind=True)
    client.post(reverse("login"), {"username": lead.username, "password": f"pw-{lead.username}"})
    _, token = invite(study, lead)
    accept(token, username="newcomer", password="a newcomer's own pass 42")
    label_with(annotator_a, study, study.issues.first(), "C.1")
    stop_labeling(lead, study, study.current_round.number)
    advance(study, lead, confirm_missing=True)
    client.get(reverse("annotation:study_export_csv", args=[study.pk]))
    actions = list(AuditEntry.objects.values_list("actor", "action"))
    for expected in [(lead.username, "sign-in"), (lead.username, "invitation made"),
                     ("newcomer", "invitation used"), ("", "member added"),
                     (lead.username, "stopped labeling to see everything"), (lead.username, "phase changed"),
                     (lead.username, "export")]:
        assert expected in actions, (expected, actions)
    assert AuditEntry.objects.get(action="phase changed").detail["after"] == "review"
    assert list(broken_links()) == []


def _chain(n: int = 5) -> list[AuditEntry]:
    return [record("test event", None, None, n=k) for k in range(n)]


def test_a_changed_entry_breaks_the_chain(capsys):
    entries = _chain()
    call_command("audit_check")
    assert "The audit log is whole: 5 entries." in capsys.readouterr().out
    AuditEntry.objects.filter(pk=entries[2].pk).update(actor="someone else")  # behind the model's back
    with pytest.raises(CommandError, match="broken in 1 place"):
        call_command("audit_check")
    assert f"entry {entries[2].pk}" in capsys.readouterr().out


def test_a_removed_or_inserted_entry_breaks_the_chain():
    entries = _chain()
    AuditEntry.objects.filter(pk=entries[2].pk).delete()
    problems = list(broken_links())
    assert len(problems) == 1 and f"entry {entries[3].pk}" in problems[0] and "removed" in problems[0]
    AuditEntry.objects.all().delete()
    entries = _chain(3)
    forged = AuditEntry(at=timezone.now(), actor="forger", action="test event", detail={}, prev_hash=entries[0].hash,
                        hash="0" * 64)
    AuditEntry.objects.bulk_create([forged])
    assert list(broken_links())  # its own hash is wrong, and the next entry no longer follows its predecessor


def test_entries_are_never_changed_through_the_model():
    entry = _chain(1)[0]
    entry.actor = "x"
    with pytest.raises(ValueError):
        entry.save()
    with pytest.raises(ValueError):
        entry.delete()


def test_retention_removes_the_oldest_and_what_remains_checks_whole(settings):
    entries = _chain(6)
    AuditEntry.objects.filter(pk__in=[e.pk for e in entries[:3]]).update(at=timezone.now() - timedelta(days=40))
    # Made old behind the model's back (their hashes no longer match): they are the ones retention removes, and
    # the oldest entry kept anchors what remains.
    settings.AUDIT_RETENTION_DAYS = 30
    call_command("audit_prune", stdout=io.StringIO())
    assert list(AuditEntry.objects.values_list("pk", flat=True)) == [e.pk for e in entries[3:]]
    assert list(broken_links()) == []


def test_the_admins_read_it_and_download_it(client_as, admin, annotator_a, study):
    record("test event", admin, study, what="something")
    page = client_as(admin).get(reverse("audit_log")).content.decode()
    assert "test event" in page and "what=something" in page
    body = b"".join(client_as(admin).get(reverse("audit_csv")).streaming_content).decode("utf-8-sig")
    rows = list(csv.DictReader(io.StringIO(body)))
    event = next(row for row in rows if row["action"] == "test event")
    assert event["actor"] == admin.username and len(event["hash"]) == 64
    assert client_as(annotator_a).get(reverse("audit_log")).status_code == 403
    assert client_as(annotator_a).get(reverse("audit_csv")).status_code == 403


@pytest.mark.django_db(transaction=True)
def test_writers_at_once_keep_one_chain():
    """Eight threads recording at once: each entry names the one before it, none is claimed twice."""
    import threading

    from django.db import connection, connections

    if connection.vendor != "postgresql":
        pytest.skip("concurrent writers need PostgreSQL (SQLite locks the file)")

    def write():
        try:
            for k in range(10):
                record("test event", None, None, k=k)
        finally:
            connections.close_all()

    threads = [threading.Thread(target=write) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert AuditEntry.objects.filter(action="test event").count() == 80
    assert list(broken_links()) == []


def test_failed_sign_ins_are_counted_not_logged_one_by_one(client, settings, lead):
    """A stranger guessing passwords cannot grow the log by a row a request: failures are django-axes' count,
    and the log gets one entry when the count locks the name out from that address."""
    for _ in range(100):
        client.post(reverse("login"), {"username": lead.username, "password": "wrong"})
    for _ in range(20):
        client.post(reverse("login"), {"username": "nobody\x00here", "password": "wrong"})
    entries = list(AuditEntry.objects.values_list("action", "detail"))
    assert [a for a, _ in entries if a == "sign-in failed"] == []
    locked = [d for a, d in entries if a == "sign-ins locked out"]
    assert [d["username"] for d in locked] == [lead.username], entries
    assert locked[0]["failures"] == settings.AXES_FAILURE_LIMIT and "wrong" not in str(locked[0])
    assert not list(broken_links())
