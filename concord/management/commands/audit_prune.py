from __future__ import annotations

from datetime import timedelta

from django.conf import settings
from django.core.management.base import BaseCommand
from django.utils import timezone

from concord.models import AuditEntry


class Command(BaseCommand):
    help = ("Remove audit entries older than AUDIT_RETENTION_DAYS (0 keeps every entry). The oldest entry kept "
            "anchors the chain, so what remains still checks whole.")

    def handle(self, *args, **options):
        days = settings.AUDIT_RETENTION_DAYS
        if not days:
            self.stdout.write("AUDIT_RETENTION_DAYS is 0: every entry is kept.")
            return
        cutoff = timezone.now() - timedelta(days=days)
        # From the oldest on, never from the middle: an entry is removed only with every entry before it.
        keep_from = AuditEntry.objects.filter(at__gte=cutoff).order_by("pk").values_list("pk", flat=True).first()
        old = AuditEntry.objects.all() if keep_from is None else AuditEntry.objects.filter(pk__lt=keep_from)
        removed, _ = old.delete()
        self.stdout.write(f"{removed:,} audit entries older than {days} days removed.")
