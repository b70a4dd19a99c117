"""The ingest commands' progress bar redraws one line."""
from __future__ import annotations

import io
from types import SimpleNamespace

from django.core.management.base import OutputWrapper

from ingest.management.progress import RunProgress


def test_the_bar_redraws_in_place_through_djangos_output_wrapper():
    out = io.StringIO()
    progress = RunProgress(OutputWrapper(out))
    for fetched in (10, 20, 30):
        progress(SimpleNamespace(total=30, fetched=fetched, created=fetched, updated=0, unchanged=0,
                                 skipped_pull_requests=0, filtered_out=0, errors=0))
    progress.close()
    text = out.getvalue()
    assert text.count("\n") == 1 and text.count("\r") >= 3 and "30/30" in text
