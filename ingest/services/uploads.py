"""Files uploaded on the sources page: stored under MEDIA_ROOT where web and worker both read them."""
from __future__ import annotations

import uuid
from pathlib import Path

from django.conf import settings
from django.utils.text import get_valid_filename

from ..models import IngestRun, Source
from . import runs


def store_upload(uploaded) -> Path:
    folder = Path(settings.MEDIA_ROOT) / "ingest"
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{uuid.uuid4().hex}-{get_valid_filename(uploaded.name)}"
    with open(path, "wb") as out:
        for chunk in uploaded.chunks():
            out.write(chunk)
    return path


def start_file_run(source: Source, uploaded, file_format: str = "", user=None) -> IngestRun:
    path = store_upload(uploaded)
    run = runs.create_run(source, IngestRun.Kind.FILE, user=user, file_path=str(path), file_format=file_format)
    return runs.enqueue(run)
