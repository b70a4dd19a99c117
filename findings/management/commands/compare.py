from __future__ import annotations

import json

from django.core.management.base import BaseCommand, CommandError

from annotation.management.arguments import study_from
from findings.comparison import LEVELS, RULES, ComparisonError, as_dict, compare_study


class Command(BaseCommand):
    help = "Compare the label distributions of a study's subsets (chi-square, Cramér's V, residuals, shares)."

    def add_arguments(self, parser):
        parser.add_argument("study", help="the study's name or id")
        parser.add_argument("--by", choices=list(RULES), required=True)
        parser.add_argument("--level", choices=LEVELS, default="theme")
        parser.add_argument("--format", choices=["table", "json"], default="table")

    def handle(self, *args, study, by, level, format, **options):
        found = study_from(study)
        try:
            data = as_dict(compare_study(found, by, level), by, level)
        except ComparisonError as exc:
            raise CommandError(str(exc)) from exc
        if format == "json":
            self.stdout.write(json.dumps(data, indent=2))
            return
        if data["undefined_because"]:
            self.stdout.write(f"undefined: {data['undefined_because']}")
            return
        width = max(len(s) for s in data["subsets"])
        self.stdout.write(f"{'':<{width}}  " + " ".join(f"{c:>8}" for c in data["categories"]))
        for name, row, shares in zip(data["subsets"], data["counts"], data["shares"], strict=True):
            self.stdout.write(f"{name:<{width}}  " + " ".join(f"{n:>8}" for n in row))
            self.stdout.write(f"{'':<{width}}  " + " ".join(f"{100 * s:7.2f}%" for s in shares))
        self.stdout.write(f"chi2 {data['chi2']:.3f}, df {data['df']}, p {data['p']:.4g}, Cramér's V "
                          f"{data['cramers_v']:.3f}")
        if data["small_expected"]:
            self.stdout.write(f"{data['small_expected']} cells expect fewer than 5: {data['exact_method']}, "
                              f"p {data['exact_p']:.4g}")
