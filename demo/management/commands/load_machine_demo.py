from __future__ import annotations

from django.core.management.base import BaseCommand

from annotation.models import Study
from machines.models import MachineRater
from machines.services.raters import add_rater
from machines.services.runs import run, start_run

# The demo study whose labels are the study's seven annotators' (demo.services.PUBLISHED_STUDY).
STUDY = "vLLM demo: the study's seven annotators"


class Command(BaseCommand):
    help = "Give the demo's published-labels study a built-in machine rater, rated once (safe to run again)."

    def handle(self, *args, **options):
        study = Study.objects.filter(name=STUDY).first()
        if study is None:
            self.stdout.write("No demo study; run load_demo first.")
            return
        if MachineRater.objects.filter(study=study).exists():
            self.stdout.write("The demo's machine rater is there already.")
            return
        rater = add_rater(study, name="tfidf-sgd (demo)", kind=MachineRater.Kind.BUILTIN)
        done = run(start_run(rater, send=False))
        self.stdout.write(f"{rater.name}: {done.message}")
