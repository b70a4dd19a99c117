from django.apps import AppConfig


class InterviewsConfig(AppConfig):
    name = "interviews"
    verbose_name = "Interviews (Stage II)"
