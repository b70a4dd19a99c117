"""The audit log: recording an event, and checking that the chain of entries is whole.

An entry's hash covers the hash of the entry before it and its own fields, written as canonical JSON, so
editing a row, deleting one or putting one between two breaks every hash from there on. Entries are written in
the transaction of what they record (a refused action leaves none) and one at a time: PostgreSQL serialises the
writers with a transaction-level advisory lock, so two entries never claim the same predecessor."""
from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from . import rows
from .models import AuditEntry

LOCK = 0x6175646974  # "audit": the advisory lock that orders writers

# An entry keeps its action in English, as hashed; the log names it in the reader's language. An action not named
# here is shown as stored.
ACTIONS = {
    "sign-in": _("sign-in"),
    "sign-in failed": _("sign-in failed"),  # entries from before failures were counted rather than logged
    "sign-ins locked out": _("sign-ins locked out"),
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
    return entry


def broken_links() -> Iterator[str]:
    """What is wrong with the chain, entry by entry (nothing when it is whole). The oldest entry kept is its
    anchor: retention removes entries from the oldest on, never from the middle."""
    previous = None
    for entry in AuditEntry.objects.order_by("pk").iterator(chunk_size=2000):
        expected = _digest(entry.prev_hash, entry.at.isoformat(), entry.actor, entry.action, entry.study_id,
                           entry.detail)
        if entry.hash != expected:
            yield f"entry {entry.pk} ({entry}): its fields do not give its hash: it was changed"
        if previous is not None and entry.prev_hash != previous.hash:
            yield (f"entry {entry.pk} ({entry}): it follows entry {previous.pk}, whose hash is not the one it "
                   "names: an entry between them was removed, or one of them was changed")
        previous = entry
