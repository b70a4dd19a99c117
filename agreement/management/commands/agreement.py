from __future__ import annotations

import json

from django.core.management.base import BaseCommand, CommandError

from agreement.reports import LEVELS, agreement_figures, study_agreement
from annotation.management.arguments import study_from
from annotation.selectors.studies import agreement_round
from concord.numbers import interval, number


def _num(value) -> str:
    return "undefined" if value is None else number(value)


class Command(BaseCommand):
    help = "Print a study's agreement figures (the dashboard's), as a table or as JSON."

    def add_arguments(self, parser):
        parser.add_argument("study", help="the study's name or id")
        parser.add_argument("--level", choices=LEVELS, default="theme", help="per-type figures at this level")
        parser.add_argument("--format", choices=["table", "json"], default="table")
        parser.add_argument("--resamples", type=int, default=1000, help="bootstrap resamples per figure")

    def handle(self, *args, study, level, format, resamples, **options):
        found = study_from(study)
        round = agreement_round(found)
        if round is None:
            raise CommandError(f"{found} has no round yet")
        figures = agreement_figures(study_agreement(round, level, resamples=resamples))
        if format == "json":
            self.stdout.write(json.dumps(figures, indent=2, default=str))
            return
        self.stdout.write(f"{found.name}, round {figures['round']}; reports grouped by the {figures['basis']}")
        header = f"{'figure':<34} {'kappa':>8} {'95% CI':>18} {'alpha':>8} {'reports':>8} {'raters':>6}  left out"
        self.stdout.write(header)
        rows = [("type", figures["type"], figures["type_alpha"])] + [
            (f"{t['type']} {t['name']} at {level.replace('_', '-')}", t["fleiss"], t["alpha"])
            for t in figures["per_type"]]
        for name, f, a in rows:
            ci = interval(f["ci_low"], f["ci_high"])
            reasons = "; ".join(f"{n} {why}" for why, n in f["left_out_reasons"].items())
            why = f" ({reasons})" if reasons else ""
            self.stdout.write(f"{name[:34]:<34} {_num(f['value']):>8} {ci:>18} {_num(a['value']):>8} "
                              f"{f['n_reports']:>8} {f['n_raters']:>6}  {f['left_out']}{why}")
            if f["undefined_because"]:
                self.stdout.write(f"{'':<34} kappa undefined: {f['undefined_because']}")
        controversial = figures["controversial"]
        self.stdout.write(f"controversial reports: {controversial['type']} at type, {controversial['theme']} at theme, "
                          f"{controversial['sub_theme']} at sub-theme")
