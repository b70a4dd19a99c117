"""The audit log: the events that matter are recorded with who, what and when; the chain of hashes catches an
entry changed, removed or put in between; the admins read it on a page and as CSV; retention keeps it whole."""
from __future__ import annotations

import csv
import io
from datetime import timedelta

import pytest
from django.core.management import CommandError, call_command
from django.db import DatabaseError, connection, transaction
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


def _chain(n: int = 5, capture=None) -> list[AuditEntry]:
    if capture is None:
        return [record("test event", None, None, n=k) for k in range(n)]
    with capture(execute=True):  # committed, as in a request: each entry's head goes to the witness
        return [record("test event", None, None, n=k) for k in range(n)]


TABLE = AuditEntry._meta.db_table


def _tamper(sql: str, params=()) -> None:
    """What someone who can write the table does behind the application's back. On PostgreSQL the append-only
    trigger stands in the way, so the attacker is a superuser who switches triggers off for the session."""
    with connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            cursor.execute("SET session_replication_role = replica")
        try:
            cursor.execute(sql.replace("{table}", TABLE), params)
        finally:
            if connection.vendor == "postgresql":
                cursor.execute("SET session_replication_role = origin")


def _rehash_from(pk: int) -> None:
    """Change an entry and write every hash from it on again, as the chain alone would accept."""
    from concord.audit import _digest

    previous = AuditEntry.objects.filter(pk__lt=pk).order_by("-pk").values_list("hash", flat=True).first() or ""
    for entry in AuditEntry.objects.filter(pk__gte=pk).order_by("pk"):
        actor = "someone else" if entry.pk == pk else entry.actor
        digest = _digest(previous, entry.at.isoformat(), actor, entry.action, entry.study_id, entry.detail)
        _tamper("UPDATE {table} SET actor = %s, prev_hash = %s, hash = %s WHERE id = %s",
                [actor, previous, digest, entry.pk])
        previous = digest


def test_a_changed_entry_breaks_the_chain(capsys):
    entries = _chain()
    call_command("audit_check")
    assert "The audit log is whole: 5 entries." in capsys.readouterr().out
    _tamper("UPDATE {table} SET actor = 'someone else' WHERE id = %s", [entries[2].pk])
    with pytest.raises(CommandError, match="broken in 1 place"):
        call_command("audit_check")
    assert f"entry {entries[2].pk}" in capsys.readouterr().out


def test_a_removed_or_inserted_entry_breaks_the_chain():
    entries = _chain()
    _tamper("DELETE FROM {table} WHERE id = %s", [entries[2].pk])
    problems = list(broken_links())
    assert len(problems) == 1 and f"entry {entries[3].pk}" in problems[0] and "removed" in problems[0]
    _tamper("DELETE FROM {table}")
    entries = _chain(3)
    forged = AuditEntry(at=timezone.now(), actor="forger", action="test event", detail={}, prev_hash=entries[0].hash,
                        hash="0" * 64)
    AuditEntry.objects.bulk_create([forged])
    assert list(broken_links())  # its own hash is wrong, and the next entry no longer follows its predecessor


def test_entries_removed_from_the_end_are_caught_by_the_witness(django_capture_on_commit_callbacks):
    entries = _chain(5, django_capture_on_commit_callbacks)
    assert list(broken_links()) == []
    _tamper("DELETE FROM {table} WHERE id >= %s", [entries[3].pk])
    # What remains is a whole chain: only the heads written out of the table show that two entries are gone.
    problems = list(broken_links())
    assert len(problems) == 1 and "2 entries written and committed were removed from its end" in problems[0]
    assert str(entries[4].pk) in problems[0]


def test_a_chain_re_hashed_after_a_change_is_caught_by_the_witness(django_capture_on_commit_callbacks):
    entries = _chain(5, django_capture_on_commit_callbacks)
    _rehash_from(entries[1].pk)
    assert AuditEntry.objects.get(pk=entries[1].pk).actor == "someone else"
    problems = list(broken_links())
    assert [p.split(":")[0] for p in problems] == [f"entry {e.pk}" for e in entries[1:]], problems
    assert "re-hashed" in problems[0]


def test_entries_removed_from_the_start_without_retention_are_caught(django_capture_on_commit_callbacks):
    entries = _chain(4, django_capture_on_commit_callbacks)
    _tamper("DELETE FROM {table} WHERE id <= %s", [entries[1].pk])
    problems = list(broken_links())
    assert [p.split(":")[0] for p in problems] == [f"entry {entries[0].pk}", f"entry {entries[1].pk}"], problems


def test_entries_are_never_changed_through_the_application():
    entry = _chain(1)[0]
    entry.actor = "x"
    with pytest.raises(ValueError):
        entry.save()
    with pytest.raises(ValueError):
        entry.delete()
    with pytest.raises(ValueError):
        AuditEntry.objects.filter(pk=entry.pk).update(actor="x")
    with pytest.raises(ValueError):
        AuditEntry.objects.all().delete()
    assert AuditEntry.objects.get(pk=entry.pk).actor == ""


def test_the_database_refuses_to_change_or_remove_an_entry():
    if connection.vendor != "postgresql":
        pytest.skip("the append-only trigger is PostgreSQL's; SQLite has the model's refusal only")
    entry = _chain(1)[0]
    for sql in (f"UPDATE {TABLE} SET actor = 'x' WHERE id = %s", f"DELETE FROM {TABLE} WHERE id = %s"):
        with pytest.raises(DatabaseError, match="append-only"), transaction.atomic(), connection.cursor() as cursor:
            cursor.execute(sql, [entry.pk])
    assert AuditEntry.objects.get(pk=entry.pk).actor == ""


def test_retention_removes_the_oldest_and_says_so(settings, django_capture_on_commit_callbacks):
    entries = _chain(6, django_capture_on_commit_callbacks)
    _tamper("UPDATE {table} SET at = %s WHERE id <= %s", [timezone.now() - timedelta(days=40), entries[2].pk])
    # Made old behind the application's back (their hashes no longer match): they are the ones retention
    # removes, and the oldest entry kept anchors what remains.
    settings.AUDIT_RETENTION_DAYS = 30
    with django_capture_on_commit_callbacks(execute=True):
        call_command("audit_prune", stdout=io.StringIO())
    kept = list(AuditEntry.objects.values_list("pk", flat=True))
    assert kept[:3] == [e.pk for e in entries[3:]]
    removal = AuditEntry.objects.get(pk=kept[3])
    assert removal.action == "audit entries removed"
    assert removal.detail["removed"] == 3 and removal.detail["through"] == entries[2].pk
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
