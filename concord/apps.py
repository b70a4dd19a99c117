from django.apps import AppConfig


class ConcordConfig(AppConfig):
    # Template tags (the sanitised Markdown filter, link and one-time-token helpers) and one-time form tokens.
    name = "concord"
