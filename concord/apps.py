from django.apps import AppConfig


class ConcordConfig(AppConfig):
    # Registered as an app only for its template tags (the sanitised Markdown filter).
    name = "concord"
