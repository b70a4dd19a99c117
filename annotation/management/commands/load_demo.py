from __future__ import annotations

from django.core.management.base import BaseCommand

from annotation.services.demo import load_demo


class Command(BaseCommand):
    help = "Load the demo codebook, 300 real vLLM reports, demo users and studies (safe to run again)."

    def handle(self, *args, **options):
        passwords = load_demo()
        if passwords:
            self.stdout.write(self.style.SUCCESS("Demo users created. Their passwords are shown only now:"))
            for name, password in passwords.items():
                self.stdout.write(f"  {name:<6} {password}")
        else:
            self.stdout.write("Demo data present; the demo users already exist (their passwords were shown when they "
                              "were made; `manage.py demo_passwords` sets new ones).")
