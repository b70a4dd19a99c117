from django.apps import AppConfig


class GiteeConfig(AppConfig):
    name = "concord.gitee"
    label = "gitee"
    verbose_name = "Gitee sign-in"
