from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class FindingsConfig(AppConfig):
    name = "findings"
    verbose_name = _("Findings")
