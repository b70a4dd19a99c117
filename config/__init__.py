"""The project's wiring: settings, URLs, the Celery app, the WSGI and ASGI entry points. Nothing here is imported
by an app; the apps meet here.

The Celery app is loaded with the settings (Celery's Django recipe), so every process that runs Django has it and
@shared_task binds to it; `celery -A config` finds it in config.celery."""
from .celery import app as celery_app

__all__ = ["celery_app"]
