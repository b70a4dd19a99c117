from __future__ import annotations

import json

from django.core.management.base import BaseCommand

from annotation.management.arguments import study_from
from findings.tables import as_json, parse_groups


class Command(BaseCommand):
    help = "Print a study's Table 1 and Figure 3 figures, computed from its final labels."

    def add_arguments(self, parser):
        parser.add_argument("study", help="the study's name or id")
        parser.add_argument("--format", choices=["json"], default="json")
        parser.add_argument("--group", action="append", default=[],
                            help='a group of themes, as "name: C.2, C.4" (repeat for more)')

    def handle(self, *args, study, format, group, **options):
        found = study_from(study)
        self.stdout.write(json.dumps(as_json(found, parse_groups("\n".join(group))), indent=2, default=str))
