"""Acting once on a form that names no state: the form carries a fresh token, the action claims it."""
from __future__ import annotations

import re
import secrets

from django.db import IntegrityError, transaction

from .models import FormSubmission

FIELD = "once"
_SHAPE = re.compile(r"[0-9a-f]{32}")


class AlreadySent(ValueError):
    """The form was sent before (a double click, a resent form) or carries no token."""


def new_token() -> str:
    return secrets.token_hex(16)


def claim(token) -> None:
    """Call inside the action's transaction: a second claim of the same token fails, and so does the action.
    Under PostgreSQL a concurrent second claim waits for the first transaction and then fails."""
    if not isinstance(token, str) or not _SHAPE.fullmatch(token):
        raise AlreadySent("this form carries no valid one-time token; reload the page and send it again")
    try:
        with transaction.atomic():
            FormSubmission.objects.create(token=token)
    except IntegrityError as exc:
        raise AlreadySent("this form was sent already (a double click?); nothing more was done") from exc
