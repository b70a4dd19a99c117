from __future__ import annotations

import time

from django.core.management.base import BaseCommand, CommandError

from annotation.backup import StudyImportError, import_study


class Command(BaseCommand):
    help = "Restore a study written by export_study; a damaged or foreign file is refused and changes nothing."

    def add_arguments(self, parser):
        parser.add_argument("path")

    def handle(self, *args, path, **options):
        started = time.perf_counter()
        try:
            study, count = import_study(path)
        except StudyImportError as exc:
            raise CommandError(str(exc)) from exc
        self.stdout.write(f"{study.name}: restored from {count} records in {time.perf_counter() - started:.1f} s")
