"""What a web or worker process loads when it starts: the URL conf and every view, so that no
annotator's request waits for imports after a restart, and not the statistics stack, which only some pages and
tasks use and which would otherwise sit in every process's memory (and cost each new worker seconds)."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from django.conf import settings

ROOT = Path(__file__).resolve().parent.parent
# Loaded where they are used (`# deferred`), never by starting a process.
HEAVY = ["scipy", "sklearn", "statsmodels", "pandas", "openpyxl"]


def _modules_after(code: str) -> set[str]:
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "config.settings"}
    result = subprocess.run([sys.executable, "-c", code + "\nimport json, sys; print(json.dumps(sorted(sys.modules)))"],
                            cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    return set(json.loads(result.stdout.strip().splitlines()[-1]))


def test_the_web_process_loads_every_view_but_not_the_statistics_stack():
    loaded = _modules_after("import config.wsgi")
    assert {"annotation.views", "machines.views", "corpus.views", "agreement.api"} <= loaded
    # numpy too: the statistics modules the views reach import it on first use (stats.lazy_numpy).
    assert not [name for name in HEAVY + ["numpy"] if name in loaded]


def test_the_worker_loads_its_tasks_but_neither_the_statistics_stack_nor_the_url_conf():
    # As a worker starts: Celery's Django fix-up sets Django up and imports the task modules (its own checks
    # skipped, config.celery), then the worker_init signal runs every check but the URLs'.
    loaded = _modules_after("import django; django.setup()\nfrom config.celery import app, check_all_but_urls\n"
                            "app.loader.import_default_modules()\ncheck_all_but_urls()")
    assert set(settings.CELERY_IMPORTS) <= loaded
    assert not [name for name in HEAVY + ["numpy", "config.urls", "rest_framework.views"] if name in loaded]


def test_a_failing_check_still_stops_the_worker():
    code = ("import django; django.setup()\nfrom django.core import checks\n"
            "checks.register(lambda **kw: [checks.Error('broken on purpose', id='test.E001')], 'models')\n"
            "from config.celery import check_all_but_urls\n"
            "try:\n    check_all_but_urls()\nexcept Exception as exc:\n    print('refused:', exc)\n")
    result = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120,
                            env={**os.environ, "DJANGO_SETTINGS_MODULE": "config.settings"})
    assert "refused:" in result.stdout and "test.E001" in result.stdout, result.stdout + result.stderr
