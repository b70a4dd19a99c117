from __future__ import annotations

from django.core.management.base import BaseCommand, CommandError

from taxonomy.models import Category
from taxonomy.services import DEFAULT_CODEBOOK, CodebookError, load_codebook


class Command(BaseCommand):
    help = "Load a codebook JSON file (types → themes → sub_themes); loading it again changes nothing."

    def add_arguments(self, parser):
        parser.add_argument("path", nargs="?", default=str(DEFAULT_CODEBOOK))

    def handle(self, *args, path: str, **options):
        try:
            codebook = load_codebook(path)
        except CodebookError as exc:
            raise CommandError(str(exc)) from exc
        counts = {
            level.label: codebook.categories.filter(level=level).count() for level in Category.Level
        }
        summary = ", ".join(f"{n} {label.lower()}s" for label, n in counts.items())
        self.stdout.write(self.style.SUCCESS(f"Loaded {codebook}: {summary}."))
