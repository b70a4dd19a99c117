from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class InterviewsConfig(AppConfig):
    name = "interviews"
    verbose_name = _("Interviews (Stage II)")
