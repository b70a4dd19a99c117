from __future__ import annotations

from django.db import models


class FormSubmission(models.Model):
    """A one-time token that a form carries; the request that acts on the form claims it in the same
    transaction, so a double click or a resent form acts once. For actions with no state to name (drawing a
    sample, making an invitation link): the others name the phase, revision or version they expect."""

    token = models.CharField(max_length=64, unique=True)
    used_at = models.DateTimeField(auto_now_add=True)

    def __str__(self) -> str:
        return self.token


class AuditEntries(models.QuerySet):
    """Entries are never changed and removed only by retention: a bulk update or delete is refused here, as
    PostgreSQL's trigger refuses it in the database (migration 0006)."""

    def update(self, **kwargs):
        raise ValueError("audit entries are never changed")

    def delete(self):
        raise ValueError("audit entries are removed only by retention (manage.py audit_prune)")

    def _prune(self) -> int:
        # The one path that removes entries (concord.audit.prune), which logs what it removed.
        return super().delete()[0]


class AuditEntry(models.Model):
    """One event that matters to an ethics board or a reviewer: who did what, when, to which study. Append-only:
    each entry carries the hash of the one before it and its own, so a changed or deleted row breaks the chain,
    and the newest entry's id and hash are written out of the table as they are committed (the witness), so
    entries removed from the end or a chain re-hashed from a changed entry on are caught too
    (`manage.py audit_check`)."""

    at = models.DateTimeField()
    actor = models.CharField(max_length=150, blank=True)  # a username as it was then; "" for the system
    action = models.CharField(max_length=64)
    study_id = models.BigIntegerField(null=True, blank=True)  # an id, not a key: the entry outlives the study
    detail = models.JSONField(default=dict, blank=True)
    prev_hash = models.CharField(max_length=64, blank=True)
    hash = models.CharField(max_length=64, unique=True)

    objects = AuditEntries.as_manager()

    class Meta:
        ordering = ["pk"]
        indexes = [models.Index(fields=["at"], name="audit_at"), models.Index(fields=["study_id"],
                                                                                 name="audit_study")]

    def __str__(self) -> str:
        return f"{self.at:%Y-%m-%d %H:%M:%S} {self.actor or 'system'} {self.action}"

    def save(self, *args, **kwargs):
        if self.pk is not None:
            raise ValueError("audit entries are never changed")
        super().save(*args, **kwargs)

    def delete(self, *args, **kwargs):
        raise ValueError("audit entries are removed only by retention (manage.py audit_prune)")


class WorkerBeat(models.Model):
    """A Celery worker that is up, as its own heartbeat says: which queues it takes and when it last beat. Kept in
    the database, which every process of every set-up shares, so that a page (or `/readyz`) can tell that no
    worker takes its work rather than wait for ever; a worker that stops cleanly removes its row."""

    name = models.CharField(max_length=255, unique=True)  # Celery's name@host
    queues = models.CharField(max_length=255)  # comma-separated
    started_at = models.DateTimeField()
    seen_at = models.DateTimeField()

    def __str__(self) -> str:
        return f"{self.name} ({self.queues}) seen {self.seen_at:%Y-%m-%d %H:%M:%S}"
