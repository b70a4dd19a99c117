"""django-simple-history's records of every change, without a class built per save.

simple_history's `HistoryDescriptor` makes a new manager class (`HistoryManager.from_queryset`, which walks
every QuerySet method with `inspect`) each time `instance.history` is read, and it reads it once per record
it writes: a millisecond of CPU per saved label, a tenth of a labeling round trip. The class depends only on
the two classes it is made from, so it is made once.
"""
from __future__ import annotations

import functools

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
