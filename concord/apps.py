import csv
import sys

from django.apps import AppConfig
from django.conf import settings
from django.urls import register_converter

from .ids import IdConverter


class ConcordConfig(AppConfig):
    # Template tags (the sanitised Markdown filter, link and one-time-token helpers) and one-time form tokens.
    name = "concord"

    def ready(self):
        # The csv module's cell limit is one setting for the whole process. Issue bodies with whole logs exceed
        # its 128 KiB default, so it is lifted once, here, rather than by one reader in passing (which changed
        # what every later reader in the same worker accepted); readers that want a smaller cell check it.
        csv.field_size_limit(sys.maxsize)

        # Every app's URLs name their row ids <id:…> (concord.ids.IdConverter); registered before any is loaded.
        register_converter(IdConverter, "id")

        from .long_lists import register

        register()

        from axes.signals import user_locked_out
        from django.contrib.auth.signals import user_logged_in

        from .audit import record

        def signed_in(sender, request, user, **kwargs):
            record("sign-in", user)

        def locked_out(sender, request, username, ip_address, **kwargs):
            # Failed sign-ins are counted by django-axes, per name and address, not logged one by one: a stranger
            # could otherwise grow the audit log by a row a request. The log gets one entry when a name is locked
            # out from an address (the failure that reaches the limit), with the name tried, never a password.
            failures = getattr(request, "axes_failures_since_start", None)
            if failures == settings.AXES_FAILURE_LIMIT:
                record("sign-ins locked out", None, username=username, address=str(ip_address or ""),
                       failures=failures)

        user_logged_in.connect(signed_in, dispatch_uid="audit-sign-in", weak=False)
        user_locked_out.connect(locked_out, dispatch_uid="audit-locked-out", weak=False)

        from . import jobs, notices

        jobs.job_finished.connect(notices.job_finished, dispatch_uid="notices-job-finished", weak=False)

        from .language import on_sign_in

        user_logged_in.connect(on_sign_in, dispatch_uid="language-on-sign-in", weak=False)
