from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class AnnotationConfig(AppConfig):
    name = "annotation"
    verbose_name = _("Studies and labels")

    def ready(self) -> None:
        from allauth.account.signals import user_logged_in as signed_in_through_allauth
        from django.contrib.auth.signals import user_logged_in

        from .signin import signed_in, signed_in_through_provider

        # Django's signal comes first in a provider's sign-in, allauth's after it: the mark is cleared, then set.
        user_logged_in.connect(signed_in, dispatch_uid="sso-mark-cleared", weak=False)
        signed_in_through_allauth.connect(signed_in_through_provider, dispatch_uid="sso-mark-set", weak=False)
