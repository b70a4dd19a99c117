"""Files uploaded on the sources page: stored under MEDIA_ROOT where web and worker both read them."""
from __future__ import annotations

import uuid
from pathlib import Path

from django.conf import settings

from concord.uploads import safe_name, write_upload

from ..models import IngestRun, Source
from . import runs, work


def store_upload(uploaded) -> Path:
    # A folder of its own, so that the file keeps its name: messages about it name the file its user chose.
    folder = Path(settings.MEDIA_ROOT) / "ingest" / uuid.uuid4().hex
    folder.mkdir(parents=True)
    return write_upload(uploaded, folder / safe_name(uploaded.name))


def start_file_run(source: Source, uploaded, file_format: str = "", user=None) -> IngestRun:
    path = store_upload(uploaded)
    run = runs.create_run(source, IngestRun.Kind.FILE, user=user, file_path=str(path), file_format=file_format)
    return work.enqueue(run)
