from __future__ import annotations

import time

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError

from annotation.management.arguments import study_from
from annotation.permissions import can_export
from corpus.replication import build


class Command(BaseCommand):
    help = ("Write a study's replication package: one zip with the corpus, the codebook and its changes, every "
            "label and its history, the agreement and reliability report, the dataset card, screening, interviews, "
            "machine raters, and a script that recomputes every figure (`python recompute.py` in the unzipped "
            "folder).")

    def add_arguments(self, parser):
        parser.add_argument("study", help="the study's name or id")
        parser.add_argument("path", help="the zip to write")
        parser.add_argument("--as", dest="username", help="whose rights decide the label history it holds "
                                                          "(default: the study's creator, else its first lead)")

    def handle(self, *args, study, path, username, **options):
        found = study_from(study)
        if username:
            viewer = get_user_model().objects.filter(username=username).first()
        else:
            lead = found.memberships.filter(role="lead").select_related("user").order_by("pk").first()
            viewer = found.created_by or (lead.user if lead else None)
        if viewer is None:
            raise CommandError(f"no user named {username!r}" if username else "the study has no creator or lead; "
                                                                              "name a user with --as")
        # The package holds every label: it is written for a person who may download it on the study's page.
        if not can_export(viewer, found):
            raise CommandError(f"{viewer.username} may not export this study (its leads and the admins may); "
                               "nothing was written")
        started = time.perf_counter()
        files = build(found, path, viewer)
        self.stdout.write(f"{path}: {files} files in {time.perf_counter() - started:.1f} s")
