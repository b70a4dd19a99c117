# The Celery app is loaded when Django starts (ConcordConfig.ready), not with the package: the modules here that
# need no Django (textcheck, weburl) are imported by ingest's worker processes, which would otherwise import
# Celery, a tenth of a second of each worker's start.
