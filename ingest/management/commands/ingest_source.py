from __future__ import annotations

from django.core.management.base import BaseCommand, CommandError

from ingest.management.progress import RunProgress
from ingest.models import IngestRun, Source
from ingest.services.api import parse_day, run_api_ingest, start_api_run
from ingest.services.sources import validate_full_name


class Command(BaseCommand):
    help = ("Fetch a repository's issues from GitHub or Gitee. Without --since it continues where the last "
            "run of the source stopped, so re-runs are incremental and a killed run resumes.")

    def add_arguments(self, parser):
        parser.add_argument("full_name", metavar="OWNER/NAME")
        parser.add_argument("--platform", choices=["github", "gitee"], default="github")
        parser.add_argument("--since", help="only issues updated on or after this day (YYYY-MM-DD)")
        parser.add_argument("--until", help="only issues updated on or before this day (YYYY-MM-DD)")
        parser.add_argument("--kind", choices=Source.Kind.values, help="for a new source (default toolkit)")

    def handle(self, *args, full_name: str, platform: str, since, until, kind, **options):
        try:
            full_name = validate_full_name(full_name)
            since_at, until_at = parse_day(since), parse_day(until, end_of_day=True)
        except ValueError as exc:
            raise CommandError(str(exc)) from exc
        source, _ = Source.objects.get_or_create(
            platform=platform, full_name=full_name, defaults={"kind": kind or Source.Kind.TOOLKIT}
        )
        run = start_api_run(source, since=since_at, until=until_at)
        if run.since:
            self.stderr.write(f"Fetching issues updated since {run.since:%Y-%m-%d %H:%M} UTC")
        progress = RunProgress(self.stderr)
        try:
            run_api_ingest(run, on_progress=progress)
        finally:
            progress.close()
        if run.status == IngestRun.Status.FAILED:
            raise CommandError(run.message)
        self.stdout.write(self.style.SUCCESS(f"{source}: {run.message}."))
