"""The audit log: recording an event, removing old entries, and checking that the log is whole.

An entry's hash covers the hash of the entry before it and its own fields, written as canonical JSON, so
editing a row, deleting one or putting one between two breaks every hash from there on. Entries are written in
the transaction of what they record (a refused action leaves none) and one at a time: PostgreSQL serialises the
writers with a transaction-level advisory lock, so two entries never claim the same predecessor.

A chain alone cannot show that its newest entries were deleted, or that someone who can write the table changed
an entry and re-hashed every one after it. So, as transparency logs publish their head, each committed entry's id
and hash go out of the table as well: to the `concord.audit` log stream and, unless AUDIT_WITNESS_FILE is "none",
appended to that file (the witness). The check compares the table with every id and hash the witness holds."""
from __future__ import annotations

import hashlib
import json
import logging
import os
from collections.abc import Iterator
from pathlib import Path

from django.conf import settings
from django.db import connection, transaction
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from . import rows
from .models import AuditEntry

LOCK = 0x6175646974  # "audit": the advisory lock that orders writers
log = logging.getLogger("concord.audit")

# An entry keeps its action in English, as hashed; the log names it in the reader's language. An action not named
# here is shown as stored.
ACTIONS = {
    "sign-in": _("sign-in"),
    "sign-in failed": _("sign-in failed"),  # entries from before failures were counted rather than logged
    "sign-ins locked out": _("sign-ins locked out"),
    "audit entries removed": _("audit entries removed"),
    "admin role from sign-in": _("admin role from sign-in"),
    "account deactivated": _("account deactivated"),
    "member added": _("member added"),
    "member removed": _("member removed"),
    "invitation made": _("invitation made"),
    "invitation used": _("invitation used"),
    "invitation withdrawn": _("invitation withdrawn"),
    "phase changed": _("phase changed"),
    "stopped labeling to see everything": _("stopped labeling to see everything"),
    "single sign-on required": _("single sign-on required"),
    "single sign-on no longer required": _("single sign-on no longer required"),
    "export": _("export"),
    "replication package": _("replication package"),
    "backup written": _("backup written"),
    "backup restored": _("backup restored"),
    "webhook added": _("webhook added"),
    "webhook switched off": _("webhook switched off"),
    "webhook switched on": _("webhook switched on"),
    "webhook message sent again": _("webhook message sent again"),
    "machine rater added": _("machine rater added"),
    "machine decision recorded": _("machine decision recorded"),
    "machine decision carried": _("machine decision carried"),
    "machine decision withdrawn": _("machine decision withdrawn"),
    "queues ordered by a machine's doubt": _("queues ordered by a machine's doubt"),
    "seat handed to a machine": _("seat handed to a machine"),
    "seat given back": _("seat given back"),
    # Codebook changes are logged as "codebook " and the change's kind.
    "codebook add": _("codebook: add"),
    "codebook rename": _("codebook: rename"),
    "codebook clarify": _("codebook: clarify definition"),
    "codebook split": _("codebook: split"),
    "codebook merge": _("codebook: merge"),
    "codebook retire": _("codebook: retire"),
    "codebook instructions": _("codebook: instructions"),
    "codebook translate": _("codebook: second language"),
}


def action_name(action: str) -> str:
    return str(ACTIONS.get(action, action))


def _digest(prev_hash: str, at: str, actor: str, action: str, study_id, detail) -> str:
    body = json.dumps([prev_hash, at, actor, action, study_id, detail], sort_keys=True, ensure_ascii=False,
                      separators=(",", ":"), default=str)
    return hashlib.sha256(body.encode("utf-8")).hexdigest()


def record(action: str, actor=None, study=None, **detail) -> AuditEntry:
    """Append an entry. `actor` is a user (or None for the system), `study` a study or its id."""
    name = getattr(actor, "username", "") or ""
    study_id = getattr(study, "pk", study)
    detail = json.loads(json.dumps(detail, default=str))  # what is stored is what was hashed
    with transaction.atomic():
        rows.advisory_lock(LOCK)
        last = AuditEntry.objects.order_by("-pk").values_list("hash", flat=True).first() or ""
        at = timezone.now()
        entry = AuditEntry(at=at, actor=name[:150], action=action[:64], study_id=study_id, detail=detail,
                           prev_hash=last)
        entry.hash = _digest(last, at.isoformat(), entry.actor, entry.action, study_id, detail)
        entry.save()
        transaction.on_commit(lambda: witness(entry))
    return entry


def witness(entry: AuditEntry) -> None:
    """Write a committed entry's id and hash out of the table. Lines are appended whole (O_APPEND, one write
    of far less than a pipe buffer), so processes writing at once never interleave them."""
    line = json.dumps({"id": entry.pk, "hash": entry.hash, "at": entry.at.isoformat()}, separators=(",", ":"))
    log.info("audit head %s", line)
    path = settings.AUDIT_WITNESS_FILE
    if not path:
        return
    try:
        Path(path).parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
        try:
            os.write(fd, (line + "\n").encode())
        finally:
            os.close(fd)
    except OSError as error:
        # The entry is committed and the log stream has its head; a full disk must not fail the action.
        log.error("audit witness %s not written: %s", path, error)


def witnessed(path=None) -> dict[int, str]:
    """The ids and hashes the witness holds (a torn last line from a crash is skipped)."""
    path = Path(path or settings.AUDIT_WITNESS_FILE or "")
    heads: dict[int, str] = {}
    if not str(path) or not path.is_file():
        return heads
    with path.open(encoding="utf-8", errors="replace") as lines:
        for line in lines:
            try:
                item = json.loads(line)
                heads[int(item["id"])] = str(item["hash"])
            except (ValueError, KeyError, TypeError):
                continue
    return heads


def prune(before, actor=None) -> int:
    """Remove every entry older than `before`, from the oldest on, never from the middle, and log the removal
    as an entry of its own naming the last id removed; the one way entries leave the table."""
    with transaction.atomic():
        rows.advisory_lock(LOCK)
        keep_from = AuditEntry.objects.filter(at__gte=before).order_by("pk").values_list("pk", flat=True).first()
        old = AuditEntry.objects.all() if keep_from is None else AuditEntry.objects.filter(pk__lt=keep_from)
        through = old.order_by("-pk").values_list("pk", flat=True).first()
        if through is None:
            return 0
        if connection.vendor == "postgresql":
            with connection.cursor() as cursor:
                cursor.execute("SET LOCAL concord.audit_prune = 'on'")
        removed = old._prune()
        if connection.vendor == "postgresql":
            with connection.cursor() as cursor:
                cursor.execute("SET LOCAL concord.audit_prune = 'off'")
        record("audit entries removed", actor, removed=removed, through=through, before=before.isoformat())
    return removed


def broken_links(witness_file=None) -> Iterator[str]:
    """What is wrong with the log, entry by entry (nothing when it is whole). The oldest entry kept is the
    chain's anchor: retention removes entries from the oldest on and says so in an entry of its own."""
    previous = None
    kept: dict[int, str] = {}
    pruned_through = 0
    for entry in AuditEntry.objects.order_by("pk").iterator(chunk_size=2000):
        expected = _digest(entry.prev_hash, entry.at.isoformat(), entry.actor, entry.action, entry.study_id,
                           entry.detail)
        if entry.hash != expected:
            yield f"entry {entry.pk} ({entry}): its fields do not give its hash: it was changed"
        if previous is not None and entry.prev_hash != previous.hash:
            yield (f"entry {entry.pk} ({entry}): it follows entry {previous.pk}, whose hash is not the one it "
                   "names: an entry between them was removed, or one of them was changed")
        if entry.action == "audit entries removed" and isinstance(entry.detail, dict):
            through = entry.detail.get("through")
            if isinstance(through, int):
                pruned_through = max(pruned_through, through)
        kept[entry.pk] = entry.hash
        previous = entry
    yield from _against_witness(kept, pruned_through, witnessed(witness_file))


def _against_witness(kept: dict[int, str], pruned_through: int, heads: dict[int, str]) -> Iterator[str]:
    newest = max(kept, default=0)
    oldest = min(kept, default=0)
    missing_end = sorted(pk for pk in heads if pk > newest)
    if missing_end:
        yield (f"the witness holds entries up to {missing_end[-1]}, the table ends at {newest or 'no entry'}: "
               f"{len(missing_end):,} entr{'y' if len(missing_end) == 1 else 'ies'} written and committed were "
               "removed from its end")
    for pk, digest in sorted(heads.items()):
        if pk > newest:
            break
        if pk in kept:
            if kept[pk] != digest:
                yield (f"entry {pk}: its hash is not the one the witness recorded when it was written: it was "
                       "changed, and the chain re-hashed from it on")
        elif pk < oldest and pk <= pruned_through:
            continue  # removed by retention, which logged it
        else:
            yield f"entry {pk}: the witness recorded it, the table does not hold it: it was removed"
