import os
from importlib import import_module

from django.conf import settings
from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
application = get_wsgi_application()
# Django imports the URL conf (and so every view) on the first request; import it now, so that gunicorn's
# workers fork with it (gunicorn.conf.py) and the first annotators after a restart do not wait for it.
import_module(settings.ROOT_URLCONF)
