from __future__ import annotations

import time

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError

from corpus.imports import ImportError_, import_labels
from taxonomy.services import CodebookError, load_codebook


class Command(BaseCommand):
    help = ("Load labels made elsewhere into a study (created if missing), all or nothing. CSV (or .csv.gz), long "
            "(report, annotator, label or type/theme/sub_theme, note) or wide (a report column, one column per "
            "annotator named Label1…LabelN or by --raters, optionally Final_Label).")

    def add_arguments(self, parser):
        parser.add_argument("study", help="the study's name")
        parser.add_argument("path")
        parser.add_argument("--codebook", help="codebook JSON for a new study (default: the shipped one)")
        parser.add_argument("--prefix", default="", help="put before annotator names to make usernames")
        parser.add_argument("--lead", help="username of the study's lead")
        parser.add_argument("--raters", help="wide layout: the annotator columns, comma-separated (default: "
                                              "Label1…LabelN); any other column stops the import")
        parser.add_argument("--keep-first", action="store_true",
                            help="where a file gives one annotator two labels for a report, keep the first")

    def handle(self, *args, study, path, codebook=None, prefix="", lead=None, keep_first=False, raters=None,
               **options):
        started = time.perf_counter()
        try:
            codebook = load_codebook(codebook) if codebook else None
            lead_user = get_user_model().objects.get(username=lead) if lead else None
            summary = import_labels(study, path, codebook=codebook, prefix=prefix, lead=lead_user,
                                    keep_first=keep_first,
                                    raters=[r.strip() for r in raters.split(",") if r.strip()] if raters else None)
        except (ImportError_, CodebookError) as exc:
            raise CommandError(str(exc)) from exc
        except get_user_model().DoesNotExist as exc:
            raise CommandError(f"--lead: no user named {lead!r}") from exc
        self.stdout.write(
            f"{summary.study.name}{' (created)' if summary.study_created else ''}: {summary.layout} layout, "
            f"{summary.labels_new} labels imported, {summary.labels_unchanged} already there, "
            f"{summary.reports_created} reports and {len(summary.annotators_created)} annotators created, "
            f"{summary.decisions} final labels, {summary.duplicates_skipped} repeated labels skipped, "
            f"in {time.perf_counter() - started:.1f} s"
        )
