from django.apps import AppConfig


class CodebookConfig(AppConfig):
    name = "codebook"
    verbose_name = "A study's codebook as it changes"
