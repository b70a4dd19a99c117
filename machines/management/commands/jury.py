from __future__ import annotations

import json

from django.core.management.base import BaseCommand, CommandError

from annotation.management.arguments import study_from
from machines.jury import JuryError, measure_jury
from machines.models import MachineRater
from stats.jury import ALPHA_MIN, CONFIDENCE_MIN


class Command(BaseCommand):
    help = ("What delegating reports to a jury of three or more machine raters would do, measured against the "
            "people's labels of the study: the machines' agreement with each other (the level is fit for them "
            "only at alpha >= --alpha), the reports on which every member agrees, each at least --confidence "
            "sure, the jury's accuracy there against people's plurality, and Fleiss' kappa among people with and "
            "without those reports (Ahmed et al., MSR 2025).")

    def add_arguments(self, parser):
        parser.add_argument("study", help="the study's name or id")
        parser.add_argument("--rater", action="append", required=True, help="a machine rater's name (3 or more)")
        parser.add_argument("--alpha", type=float, default=ALPHA_MIN)
        parser.add_argument("--confidence", type=float, default=CONFIDENCE_MIN)
        parser.add_argument("--format", choices=["table", "json"], default="table")

    def handle(self, *args, study, rater, alpha, confidence, format, **options):
        found = study_from(study)
        raters = []
        for name in dict.fromkeys(rater):
            machine = MachineRater.objects.filter(study=found, name=name).first()
            if machine is None:
                raise CommandError(f"the study has no machine rater {name!r}")
            raters.append(machine)
        try:
            figures = measure_jury(found, raters, alpha_min=alpha, confidence_min=confidence)
        except JuryError as exc:
            raise CommandError(str(exc)) from exc
        if format == "json":
            self.stdout.write(json.dumps(figures, indent=2))
            return
        self.stdout.write(describe(figures))


def _num(value) -> str:
    return "undefined" if value is None else f"{value:.3f}"


def describe(f: dict) -> str:
    acc, everyone, left = f["accuracy"], f["kappa_all"], f["kappa_people"]
    gate = "fit" if f["fit"] else "not fit: nothing is delegated"
    return "\n".join([
        f"jury: {', '.join(f['jury'])}; at {f['level']} level",
        f"machine-machine alpha {_num(f['machine_alpha'])} (needs {f['alpha_min']}): {gate}",
        f"delegated: {f['delegated']} of {f['reports']} reports ({_num(f['share'])}), every member agreeing and "
        f"at least {f['confidence_min']} sure",
        f"accuracy against people's plurality on them: {_num(acc['value'])} [{_num(acc['ci'][0])}, "
        f"{_num(acc['ci'][1])}] over {acc['n']} reports (Wilson); the threshold's promise of {f['confidence_min']} "
        + ("shown kept" if f.get("promise_kept") else "not shown (the interval's lower end is below it): the page "
           "delegates nothing"),
        f"Fleiss' kappa among people, all reports: {_num(everyone['value'])} [{_num(everyone['ci'][0])}, "
        f"{_num(everyone['ci'][1])}] over {everyone['reports']}",
        f"Fleiss' kappa among people, reports left to them: {_num(left['value'])} [{_num(left['ci'][0])}, "
        f"{_num(left['ci'][1])}] over {left['reports']}",
    ])
