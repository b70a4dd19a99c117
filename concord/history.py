"""django-simple-history's records of every change, without a class built per save, and the history rows of
rows written without signals (bulk imports, the labeling round trip's insert), copied from the stored rows by
the database (concord.rows.copy_to_history).

simple_history's `HistoryDescriptor` makes a new manager class (`HistoryManager.from_queryset`, which walks
every QuerySet method with `inspect`) each time `instance.history` is read, and it reads it once per record
it writes: a millisecond of CPU per saved label, a tenth of a labeling round trip. The class depends only on
the two classes it is made from, so it is made once.
"""
from __future__ import annotations

import functools

from django.db import connection
from django.utils import timezone
from simple_history import manager, models

from . import rows


class HistoryManager(manager.HistoryManager):
    @classmethod
    @functools.cache
    def from_queryset(cls, queryset_class, class_name=None):
        return super().from_queryset(queryset_class, class_name)


class HistoricalRecords(models.HistoricalRecords):
    """simple_history's HistoricalRecords with the manager class above."""

    def __init__(self, *args, history_manager=HistoryManager, **kwargs):
        super().__init__(*args, history_manager=history_manager, **kwargs)


def request_user_id() -> int | None:
    """Who simple_history records as the author of a change: the signed-in user of the request being served
    (its middleware keeps the request), None outside a request."""
    user = getattr(getattr(models.HistoricalRecords.context, "request", None), "user", None)
    return user.pk if user is not None and user.is_authenticated else None


def record_rows_created(model, where: str, params, *, reason: str | None = None, user_id: int | None = None) -> None:
    """One "+" history row for each row of `model` matching `where`, as simple_history would have made it on save
    (bulk writes and the round trip's insert send no signals)."""
    rows.copy_to_history(model, where, params, date=timezone.now(), reason=reason[:100] if reason else reason,
                         user_id=user_id)


def record_created(instance) -> None:
    """The "+" history row of one instance stored without signals (concord.rows.insert), its author the request's
    user as simple_history records it."""
    record_rows_created(type(instance), f"{connection.ops.quote_name(instance._meta.pk.column)} = %s",
                        [instance.pk], user_id=request_user_id())
