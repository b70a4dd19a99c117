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
