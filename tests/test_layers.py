"""The import contracts (pyproject.toml, checked by import-linter in CI) hold, and they do catch a breach."""
from __future__ import annotations

import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["importlinter"]["root_packages"]
LINT = str(Path(sys.executable).parent / "lint-imports")


def _lint(folder: Path) -> subprocess.CompletedProcess:
    return subprocess.run([LINT, "--no-cache"], cwd=folder, capture_output=True, text=True, timeout=300,
                          env={"PYTHONPATH": str(folder), "PATH": str(Path(sys.executable).parent)})


def _copy(tmp_path: Path) -> Path:
    for package in PACKAGES:
        shutil.copytree(ROOT / package, tmp_path / package, ignore=shutil.ignore_patterns("templates", "static",
                                                                                           "__pycache__"))
    shutil.copytree(ROOT / "lint", tmp_path / "lint", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(ROOT / "pyproject.toml", tmp_path)
    return tmp_path


def test_the_code_keeps_its_contracts():
    result = _lint(ROOT)
    assert result.returncode == 0, result.stdout[-3000:]


@pytest.mark.parametrize(("into", "line", "breach"), [
    ("machines/services/raters.py", "from machines import views", "machines.services.raters -> machines.views"),
    ("annotation/services/review.py", "from annotation.views import queue",
     "annotation.services.review -> annotation.views.queue"),
    ("corpus/backup.py", "import annotation.api", "corpus.backup -> annotation.api"),
    # A module of a kind no contract lists by name is covered all the same.
    ("ingest/a_new_kind.py", "from ingest import admin", "ingest.a_new_kind -> ingest.admin"),
])
def test_a_module_importing_an_interface_breaks_a_contract(tmp_path, into, line, breach):
    folder = _copy(tmp_path)
    with open(folder / into, "a") as f:
        f.write(f"\n{line}  # noqa: E402,F401\n")
    result = _lint(folder)
    assert result.returncode != 0
    assert "Interfaces are the top of every app" in result.stdout and "BROKEN" in result.stdout
    assert breach in result.stdout


def test_a_statistics_module_importing_the_database_breaks_a_contract(tmp_path):
    folder = _copy(tmp_path)
    with open(folder / "stats" / "kappa.py", "a") as f:
        f.write("\nfrom annotation.models import Label  # noqa: E402,F401\n")
    result = _lint(folder)
    assert result.returncode != 0 and "The statistics are the ground floor" in result.stdout


@pytest.mark.parametrize(("into", "line", "breach", "contract"), [
    ("ingest/services/sources.py", "from annotation.models import Study",
     "ingest.services.sources -> annotation.models", "The apps in layers"),
    # The wiring is on top: the settings are read through django.conf.settings and the Celery app through Celery's
    # current app, so an app that imported config's modules would run back up the house.
    ("concord/jobs.py", "from config import celery", "concord.jobs -> config.celery", "The apps in layers"),
    # The ground floor's second room: the guard, the HTTP and chat clients know no app's models.
    ("integrations/http.py", "from ingest.models import Source", "integrations.http -> ingest.models",
     "The apps in layers"),
    # Who is told of a job's end is the notices' business: the jobs send a signal.
    ("concord/jobs.py", "from accounts import notices", "concord.jobs -> accounts.notices", "Background work tells"),
])
def test_a_module_importing_what_it_may_not_breaks_a_contract(tmp_path, into, line, breach, contract):
    folder = _copy(tmp_path)
    with open(folder / into, "a") as f:
        f.write(f"\n{line}  # noqa: E402,F401\n")
    result = _lint(folder)
    assert result.returncode != 0
    assert contract in result.stdout and breach in result.stdout
