from __future__ import annotations

import gzip
import shutil
from pathlib import Path

import pytest
from django.core.management import call_command

from annotation.models import Study

DATA = Path(__file__).resolve().parent / "data"


@pytest.fixture
def vllm_study(db, tmp_path) -> Study:
    """The 974 vLLM reports with the study's seven annotators' labels and final labels, imported as a user would."""
    reports = tmp_path / "vllm.jsonl"
    with gzip.open(DATA / "vllm-labeled-974.jsonl.gz", "rb") as src, reports.open("wb") as out:
        shutil.copyfileobj(src, out)
    call_command("import_issues", str(reports), source="vllm-project/vllm", kind="toolkit", stdout=None)
    call_command("import_labels", "vllm", str(DATA / "vllm-paper-labels-974.csv"))
    return Study.objects.get(name="vllm")
