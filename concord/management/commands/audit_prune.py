from __future__ import annotations

from datetime import timedelta

from django.conf import settings
from django.core.management.base import BaseCommand
from django.utils import timezone

from concord.audit import prune


class Command(BaseCommand):
    help = ("Remove audit entries older than AUDIT_RETENTION_DAYS (0 keeps every entry), from the oldest on, and "
            "log the removal as an entry of its own, so what remains still checks whole.")

    def handle(self, *args, **options):
        days = settings.AUDIT_RETENTION_DAYS
        if not days:
            self.stdout.write("AUDIT_RETENTION_DAYS is 0: every entry is kept.")
            return
        removed = prune(timezone.now() - timedelta(days=days))
        self.stdout.write(f"{removed:,} audit entries older than {days} days removed.")
