from __future__ import annotations

import time

from django.core.management.base import BaseCommand

from annotation.management.arguments import study_from
from corpus.backup import export_study


class Command(BaseCommand):
    help = ("Write everything about a study (reports, labels with history, rounds, proposals and votes, change log, "
            "final labels, screening) to PATH (gzip JSON Lines, format concord-study 1); import_study restores it.")

    def add_arguments(self, parser):
        parser.add_argument("study", help="the study's name or id")
        parser.add_argument("path")

    def handle(self, *args, study, path, **options):
        found = study_from(study)
        started = time.perf_counter()
        count = export_study(found, path)
        self.stdout.write(f"{path}: {count} records in {time.perf_counter() - started:.1f} s")
