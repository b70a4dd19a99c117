"""A person's own things, apart from any study: what they chose for themselves, and what waits on them."""
from __future__ import annotations

from django.conf import settings as django_settings
from django.db import models


class Preferences(models.Model):
    """What a person chose for themselves, apart from any study: the language of every page and e-mail they get
    ("" follows their browser's Accept-Language), and which notices reach them."""

    user = models.OneToOneField(django_settings.AUTH_USER_MODEL, on_delete=models.CASCADE,
                                related_name="preferences")
    language = models.CharField(max_length=16, blank=True,
                                choices=[("", "The browser's language"), *django_settings.LANGUAGES])
    # The kinds of notice this person switched off (accounts.notices.KINDS); the rest reach them.
    notices_off = models.JSONField(default=list, blank=True)
    # Unread notices by e-mail, one digest a day at most (accounts.digests); and when the last one went.
    email_digest = models.BooleanField(default=True)
    last_digest_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        # The table kept its name when the model moved here from the concord app.
        db_table = "concord_preferences"
        verbose_name_plural = "preferences"

    def __str__(self) -> str:
        return f"{self.user}: {self.language or 'browser'}"


class Notice(models.Model):
    """Something that waits on a person: a proposal awaiting their vote, ties waiting for the lead's decision, a
    comment on a report they labeled. Kept as its kind and values, not as text, so that it reads in the language
    of whoever opens it (accounts.notices writes it out). `key` names what it is about: a newer notice of the same
    thing replaces the unread one rather than piling up."""

    user = models.ForeignKey(django_settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="notices")
    kind = models.CharField(max_length=32)
    key = models.CharField(max_length=100)
    params = models.JSONField(default=dict, blank=True)
    url = models.CharField(max_length=500, blank=True)
    study_id = models.BigIntegerField(null=True, blank=True)  # an id, not a key: the notice outlives the study
    created_at = models.DateTimeField()
    read_at = models.DateTimeField(null=True, blank=True)
    emailed_at = models.DateTimeField(null=True, blank=True)
    # When the thing it is about was done (the vote cast or closed, the ties decided): it waits on no one now.
    settled_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        db_table = "concord_notice"
        ordering = ["-created_at", "-pk"]
        constraints = [models.UniqueConstraint(fields=["user", "key"], condition=models.Q(read_at__isnull=True),
                                               name="notice_one_unread_per_thing")]
        indexes = [models.Index(fields=["user", "read_at"], name="notice_user_unread")]

    def __str__(self) -> str:
        return f"{self.user_id} {self.kind} {self.key}"
