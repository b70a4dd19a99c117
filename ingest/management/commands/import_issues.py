from __future__ import annotations

from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from ingest.importers import FORMATS, ImportFileError
from ingest.management.progress import RunProgress
from ingest.models import Source
from ingest.services.files import import_file
from ingest.services.sources import validate_full_name


class Command(BaseCommand):
    help = ("Import issue reports from a file: a saved GitHub API response, `gh issue list --json` output, "
            "JSON Lines or CSV. Re-importing updates in place; a bad file changes nothing.")

    def add_arguments(self, parser):
        parser.add_argument("path")
        parser.add_argument("--source", required=True, help="OWNER/NAME of the repository")
        parser.add_argument("--format", choices=FORMATS, help="detected from the file when not given")
        parser.add_argument("--platform", choices=Source.Platform.values, default=Source.Platform.GITHUB)
        parser.add_argument("--kind", choices=Source.Kind.values, default=Source.Kind.TOOLKIT)

    def handle(self, *args, path: str, source: str, format: str | None, platform: str, kind: str, **options):
        try:
            full_name = validate_full_name(source)
        except ValueError as exc:
            raise CommandError(str(exc)) from exc
        if not Path(path).is_file():
            raise CommandError(f"{path}: no such file{' (a folder)' if Path(path).is_dir() else ''}. Nothing was "
                               "imported.")
        src, created = Source.objects.get_or_create(platform=platform, full_name=full_name, defaults={"kind": kind})
        progress = RunProgress(self.stderr)
        try:
            run = import_file(path, src, file_format=format, on_progress=progress)
        except Exception as exc:
            if created:
                src.delete()  # a source made only for this failed import, and its failed run, would be changes too
            if isinstance(exc, ImportFileError):
                raise CommandError(f"{exc}. Nothing was imported.") from exc
            raise
        finally:
            progress.close()
        self.stdout.write(self.style.SUCCESS(f"{src.full_name}: {run.message}."))
