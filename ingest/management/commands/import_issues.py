from __future__ import annotations

from django.core.management.base import BaseCommand, CommandError
from django.db import transaction

from ingest.importers import ImportFileError
from ingest.models import Source
from ingest.services import get_or_create_source, import_jsonl


class Command(BaseCommand):
    help = "Import issue reports from a JSON Lines file (GitHub API field names); re-importing updates in place."

    def add_arguments(self, parser):
        parser.add_argument("path")
        parser.add_argument("--source", required=True, help="OWNER/NAME of the repository")
        parser.add_argument("--platform", choices=Source.Platform.values, default=Source.Platform.GITHUB)
        parser.add_argument("--kind", choices=Source.Kind.values, default=Source.Kind.TOOLKIT)

    def handle(self, *args, path: str, source: str, platform: str, kind: str, **options):
        try:
            # One transaction, so a bad file does not even leave a new empty source behind.
            with transaction.atomic():
                src = get_or_create_source(source, platform=platform, kind=kind)
                result = import_jsonl(path, src)
        except (ImportFileError, ValueError) as exc:
            raise CommandError(f"{exc}. Nothing was imported.") from exc
        self.stdout.write(self.style.SUCCESS(f"{src.full_name}: {result}."))
