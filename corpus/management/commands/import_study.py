from __future__ import annotations

import time

from django.core.management.base import BaseCommand, CommandError

from corpus.backup import StudyImportError, import_study


class Command(BaseCommand):
    help = "Restore a study written by export_study; a damaged or foreign file is refused and changes nothing."

    def add_arguments(self, parser):
        parser.add_argument("path")

    def handle(self, *args, path, **options):
        started = time.perf_counter()
        try:
            restored = import_study(path)
        except StudyImportError as exc:
            raise CommandError(str(exc)) from exc
        self.stdout.write(f"{restored.study.name}: restored from {restored.records} records in "
                          f"{time.perf_counter() - started:.1f} s")
        for warning in restored.warnings:
            self.stdout.write(f"warning: {warning}")
        if restored.new_users:
            # A backup never carries passwords or rights: these people need an invitation link to log in.
            self.stdout.write(f"{len(restored.new_users)} new accounts, with no password and no rights (give each "
                              f"a password with `manage.py changepassword NAME` or in the admin): "
                              f"{', '.join(restored.new_users)}")
