from __future__ import annotations

import json
import time
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from annotation.management.arguments import study_from
from corpus.columns import study_status
from corpus.dataset_card import dataset_card
from corpus.exports import csv_chunks, jsonl_rows, study_document


class Command(BaseCommand):
    help = ("Write a study's labeled corpus (one record per report) as CSV or JSON Lines, with study.json and a "
            "dataset card beside it. Streams: memory stays flat however large the study.")

    def add_arguments(self, parser):
        parser.add_argument("study", help="the study's name or id")
        parser.add_argument("--format", choices=["csv", "jsonl"], default="csv")
        parser.add_argument("--output", required=True, help="the corpus file to write")
        parser.add_argument("--raw", action="store_true",
                            help="CSV cells exactly as stored, for scripts: no apostrophe before cells that a "
                                 "spreadsheet would run as formulas (=, +, -, @, tab, carriage return)")
        parser.add_argument("--with-contacts", action="store_true", help="include members' e-mail addresses")

    def handle(self, *args, study, format, output, with_contacts, raw, **options):
        found = study_from(study)
        path = Path(output)
        if not path.parent.exists():
            raise CommandError(f"--output: the folder {path.parent} does not exist")
        started = time.perf_counter()
        rows = csv_chunks(found, raw=raw) if format == "csv" else (line.encode() for line in jsonl_rows(found))
        with open(path, "wb") as f:
            for chunk in rows:
                f.write(chunk)
        corpus = time.perf_counter() - started
        document = study_document(found, with_contacts=with_contacts)
        (path.with_suffix(".study.json")).write_text(json.dumps(document, indent=2, ensure_ascii=False),
                                                     encoding="utf-8")
        (path.with_suffix(".card.md")).write_text(dataset_card(found, document), encoding="utf-8")
        self.stdout.write(f"{path}: {found.issues.count()} reports ({study_status(found)}) in {corpus:.1f} s, "
                          f"study.json and dataset card beside it in {time.perf_counter() - started - corpus:.1f} s")
