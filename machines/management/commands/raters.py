from __future__ import annotations

import argparse
import json

from django.core.management.base import BaseCommand

from annotation.management.arguments import study_from
from machines.exports import study_machines
from stats.alt_test import EPSILONS, epsilon_of


class Command(BaseCommand):
    help = ("A study's machine raters: what reproduces each, its runs, and its figures against the human panel at "
            "every level and type (Cohen with each human and the plurality, Fleiss and alpha with the machine in "
            "place of each human, the alternative annotator test, self-agreement, confusion matrix), and the "
            "decisions to let a machine replace an annotator with their sentinel watch.")

    def add_arguments(self, parser):
        parser.add_argument("study", help="the study's name or id")
        parser.add_argument("--format", choices=["table", "json"], default="table")
        parser.add_argument("--epsilon", type=_epsilon, default=EPSILONS["skilled"],
                            help="the alternative annotator test's margin, any number in (0, 0.5]; its authors "
                                 "suggest 0.2 for experts, 0.15 skilled, 0.1 crowd")

    def handle(self, *args, study, format, epsilon, **options):
        found = study_from(study)
        data = study_machines(found, epsilon=epsilon)
        if format == "json":
            self.stdout.write(json.dumps(data, indent=2, ensure_ascii=False))
            return
        if not data["raters"]:
            self.stdout.write("no machine raters")
        for rater in data["raters"]:
            self.stdout.write(f"{rater['name']} ({rater['kind']}): {len(rater['runs'])} runs")
            for figures in rater["figures"]:
                where = figures["level"] + (f" of {figures['type']}" if figures["type"] else "")
                plural, alt = figures["cohen_plurality"], figures["alt_test"]
                humans = figures["humans_fleiss"]
                self.stdout.write(
                    f"  {where:<20} n {figures['reports']:>6}  kappa vs plurality {_num(plural['value'])} "
                    f"[{_num(plural['ci'][0])}, {_num(plural['ci'][1])}]  humans' Fleiss {_num(humans['value'])}  "
                    f"alt-test w {_num(alt['winning_rate'])} ({'passes' if alt['passed'] else 'fails'}) at "
                    f"epsilon {alt['epsilon']}")
                for c in alt["comparisons"]:
                    self.stdout.write(f"    {'':<18} leaving out {c['human']}: agreement with the others, "
                                      f"{c['human']} {_num(c['human_agreement'])}, machine "
                                      f"{_num(c['machine_agreement'])} over {c['items']} reports"
                                      f"{' (machine wins)' if c['machine_wins'] else ''}")
        for decision in data["decisions"]:
            self.stdout.write(f"decision: {decision['rater']} at {decision['level']} {decision['type']}: "
                              f"{'below on sentinels' if decision['below'] else 'holding'}")


def _epsilon(text: str) -> float:
    try:
        return epsilon_of(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def _num(value) -> str:
    return "  —  " if value is None else f"{value:.3f}"
