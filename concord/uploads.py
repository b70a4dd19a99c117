"""Uploaded files put on disk for the importers, which read paths and name the file in their messages."""
from __future__ import annotations

import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from django.core.exceptions import SuspiciousFileOperation
from django.utils.text import get_valid_filename


def safe_name(name: str) -> str:
    """The file's own name, made safe for a path; "upload" when nothing is left (a name such as "..")."""
    try:
        return get_valid_filename(Path(name).name)
    except SuspiciousFileOperation:
        return "upload"


def write_upload(uploaded, path: Path) -> Path:
    with open(path, "wb") as out:
        for chunk in uploaded.chunks():
            out.write(chunk)
    return path


@contextmanager
def upload_on_disk(uploaded) -> Iterator[Path]:
    """The upload under its own name in a folder of its own, removed when the block ends."""
    with tempfile.TemporaryDirectory() as folder:
        yield write_upload(uploaded, Path(folder) / safe_name(uploaded.name))
