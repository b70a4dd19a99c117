from __future__ import annotations

from django.core.management.base import BaseCommand, CommandError

from concord.audit import broken_links
from concord.models import AuditEntry


class Command(BaseCommand):
    help = "Check that the audit log's chain of hashes is whole: no entry changed, removed or put in between."

    def handle(self, *args, **options):
        problems = list(broken_links())
        for problem in problems:
            self.stdout.write(problem)
        if problems:
            raise CommandError(f"the audit log is broken in {len(problems)} place(s)")
        self.stdout.write(f"The audit log is whole: {AuditEntry.objects.count():,} entries.")
