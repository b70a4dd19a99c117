from django.apps import AppConfig


class RemindersConfig(AppConfig):
    # What Concord reminds people of on its own schedule (Celery beat): queues left idle.
    name = "reminders"
