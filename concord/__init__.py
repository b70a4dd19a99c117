# What every app shares. The Celery app is not loaded with this package but with the settings (config): the
# modules here that need no Django (textcheck, weburl) are imported by ingest's worker processes, which would
# otherwise import Celery, a tenth of a second of each worker's start.
