from django.apps import AppConfig


class WebhooksConfig(AppConfig):
    # A study's events told to addresses outside Concord: the lead's page, the messages and their retries.
    name = "webhooks"

    def ready(self):
        from annotation.events import study_event

        from .services import on_study_event

        # The study's rules tell of an event; a message is written for each webhook that takes it.
        study_event.connect(on_study_event, dispatch_uid="webhooks-study-event", weak=False)
