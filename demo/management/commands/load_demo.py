from __future__ import annotations

from django.core.management.base import BaseCommand

from demo.services import load_demo

from ...passwords_file import framed, keep


class Command(BaseCommand):
    help = "Load the demo codebook, 300 real vLLM reports, demo users and studies (safe to run again)."

    def handle(self, *args, **options):
        passwords = load_demo()
        if passwords:
            keep(passwords)
            self.stdout.write(self.style.SUCCESS("Demo users created."))
            self.stdout.write(framed(passwords))
        else:
            self.stdout.write("Demo data present; the demo users already exist (their passwords are in the demo "
                              "passwords file; `manage.py demo_passwords` sets new ones).")
