from __future__ import annotations

from django.core.management.base import BaseCommand, CommandError

from annotation.services.demo import new_demo_passwords


class Command(BaseCommand):
    help = "Give each demo user (lead, ann1, ann2, ann3) a new random password, and print them."

    def handle(self, *args, **options):
        passwords = new_demo_passwords()
        if not passwords:
            raise CommandError("There are no demo users here; make them with `manage.py load_demo`.")
        self.stdout.write(self.style.SUCCESS("New passwords for the demo users:"))
        for name, password in passwords.items():
            self.stdout.write(f"  {name:<6} {password}")
