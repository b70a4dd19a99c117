from django.apps import AppConfig


class GiteeConfig(AppConfig):
    name = "accounts.gitee"
    label = "gitee"
    verbose_name = "Gitee sign-in"
