"""How the web process runs (gunicorn reads this file from the working folder): the Docker image, Compose and
the benchmarks all start `gunicorn config.wsgi:application` with it."""
import gc

bind = "0.0.0.0:8000"
# One process per core of a small server, each with threads for the requests that wait on the database.
workers = 2
threads = 4
# Annotators read for seconds between labels: with the default 2-second keep-alive most labels would open a new
# connection (a browser keeps its own for a minute or more).
keepalive = 75
# The application, its URL conf and every view are loaded once, before the workers fork (config/wsgi.py): the
# workers share those pages instead of each holding a copy, and no annotator's request waits for a worker to
# import them. A code change needs a restart, not a HUP.
preload_app = True


def pre_fork(server, worker):
    from django.db import connections

    # A connection opened while loading must not be shared by two processes.
    connections.close_all()
    # Objects that exist now are never collected, so the collector does not write to (and so copy) the pages
    # the workers share with this process.
    gc.freeze()
