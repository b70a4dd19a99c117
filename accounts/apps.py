from django.apps import AppConfig
from django.conf import settings


class AccountsConfig(AppConfig):
    # A person's own things, apart from any study: signing in and its providers, the language they read in, the
    # notices that wait on them and their e-mail digest, the lock-out after failed sign-ins.
    name = "accounts"

    def ready(self):
        from axes.signals import user_locked_out
        from django.contrib.auth.signals import user_logged_in

        from concord.audit import record
        from concord.jobs import job_finished

        from . import notices
        from .language import on_sign_in

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
        # Background work tells nobody itself; a finished job becomes a notice here.
        job_finished.connect(notices.job_finished, dispatch_uid="notices-job-finished", weak=False)
        user_logged_in.connect(on_sign_in, dispatch_uid="language-on-sign-in", weak=False)
