from __future__ import annotations

from django.core.management.base import BaseCommand, CommandError

from ingest.services.keywords import KeywordFileError, load_keyword_list, load_shipped_lists


class Command(BaseCommand):
    help = "Load keyword lists from JSON files; without a path, the study's lists shipped with Concord."

    def add_arguments(self, parser):
        parser.add_argument("paths", nargs="*")

    def handle(self, *args, paths: list[str], **options):
        try:
            lists = [load_keyword_list(p) for p in paths] if paths else load_shipped_lists()
        except KeywordFileError as exc:
            raise CommandError(str(exc)) from exc
        for keyword_list in lists:
            self.stdout.write(f"{keyword_list.name}: {keyword_list.keywords.count()} keywords")
