import csv
import sys

from django.apps import AppConfig
from django.urls import register_converter

from .ids import IdConverter


class ConcordConfig(AppConfig):
    # Template tags (the sanitised Markdown filter, link and one-time-token helpers) and one-time form tokens.
    name = "concord"

    def ready(self):
        # The csv module's cell limit is one setting for the whole process. Issue bodies with whole logs exceed
        # its 128 KiB default, so it is lifted once, here, rather than by one reader in passing (which changed
        # what every later reader in the same worker accepted); readers that want a smaller cell check it.
        csv.field_size_limit(sys.maxsize)

        # Every app's URLs name their row ids <id:…> (concord.ids.IdConverter); registered before any is loaded.
        register_converter(IdConverter, "id")

        from .long_lists import register

        register()
