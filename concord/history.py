"""django-simple-history's records of every change, without a class built per save, and the history row of
a label saved on the labeling round trip's path, written as one INSERT … SELECT.

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


@functools.cache
def _created_sql(model) -> str:
    quote = connection.ops.quote_name
    history = model.history.model
    names = ", ".join(quote(field.column) for field in model._meta.concrete_fields)
    return (f"INSERT INTO {quote(history._meta.db_table)} ({names}, history_date, history_change_reason, "
            f"history_type, history_user_id) SELECT {names}, %s, NULL, '+', %s FROM {quote(model._meta.db_table)} "
            f"WHERE {quote(model._meta.pk.column)} = %s")


def record_created(instance) -> None:
    """The "+" history row of an instance stored without signals (concord.rows.insert), made from the stored
    row itself, as simple_history would have made it on save."""
    with connection.cursor() as cursor:
        cursor.execute(_created_sql(type(instance)), [timezone.now(), request_user_id(), instance.pk])
