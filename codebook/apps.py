from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class CodebookConfig(AppConfig):
    name = "codebook"
    verbose_name = _("A study's codebook as it changes")
