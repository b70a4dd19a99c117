from __future__ import annotations

from django.core.management.base import BaseCommand, CommandError

from annotation.management.arguments import study_from
from concord.errors import FieldError
from machines.models import MachineRater, MachineRun
from machines.services.raters import add_rater
from machines.services.runs import run, start_run


class Command(BaseCommand):
    help = ("Rate a study's reports with one of its machine raters, here and now (the web page queues the same job "
            "on the worker). With --kind, a rater of that name is added first if the study has none.")

    def add_arguments(self, parser):
        parser.add_argument("study", help="the study's name or id")
        parser.add_argument("--rater", required=True, help="the machine rater's name")
        parser.add_argument("--kind", choices=MachineRater.Kind.values, help="add the rater if missing")
        parser.add_argument("--training", choices=MachineRater.Training.values, default="final")
        parser.add_argument("--model", help="language model: the model's name at the endpoint")
        parser.add_argument("--endpoint", help="language model: one of the server's endpoints (LLM_ENDPOINTS), by name")
        parser.add_argument("--base-url", help="language model: an endpoint of the rater's own, with no key")
        parser.add_argument("--runs", help="language model: runs per report (its self-agreement)")
        parser.add_argument("--temperature")
        parser.add_argument("--seed")
        parser.add_argument("--folds", help="built-in model: cross-fitting folds (default 5)")
        parser.add_argument("--features", help="built-in model: what it reads (words-1-2, the default; words-1; "
                                               "opening)")

    def handle(self, *args, study, rater, kind, training, **options):
        found = study_from(study)
        machine = MachineRater.objects.filter(study=found, name=rater).first()
        try:
            if machine is None:
                if kind is None:
                    names = ", ".join(found.machine_raters.values_list("name", flat=True)) or "none yet"
                    raise CommandError(f"the study has no machine rater {rater!r} (it has: {names}); add it "
                                       "with --kind builtin or --kind llm")
                raw = {k: options[k] for k in ("model", "runs", "temperature", "seed", "folds", "features")
                       if options[k]}
                raw.update({k: options[k] for k in ("endpoint", "base_url") if options[k]})
                machine = add_rater(found, name=rater, kind=kind, training=training, raw_settings=raw)
            queued = start_run(machine, send=False)
        except FieldError as exc:
            raise CommandError(str(exc)) from exc
        # Run here rather than on the worker: the command's output is the run's outcome.
        done = run(queued)
        self.stdout.write(f"{machine.name} run {done.pk}: {done.status}. {done.message}")
        if done.status != MachineRun.Status.SUCCEEDED:
            raise CommandError(f"run {done.pk} {done.status}")
