from __future__ import annotations

from django.core.management.base import BaseCommand, CommandError

from demo.services import new_demo_passwords

from ...passwords_file import framed, keep


class Command(BaseCommand):
    help = "Give each demo user (lead, ann1, ann2, ann3) a new random password, print them and keep them."

    def handle(self, *args, **options):
        passwords = new_demo_passwords()
        if not passwords:
            raise CommandError("There are no demo users here; make them with `manage.py load_demo`.")
        keep(passwords)
        self.stdout.write(self.style.SUCCESS("New passwords for the demo users:"))
        self.stdout.write(framed(passwords))
