from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class MachinesConfig(AppConfig):
    name = "machines"
    verbose_name = _("Machine raters")
