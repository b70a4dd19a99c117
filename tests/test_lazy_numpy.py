"""stats.lazy_numpy: numpy imported on first use, by whichever thread comes first."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_first_use_imports_numpy_once_whatever_the_threads():
    code = """
import sys, threading
from stats.lazy_numpy import np
assert "numpy" not in sys.modules
results = []
def use():
    results.append(np.arange(5).sum())
threads = [threading.Thread(target=use) for _ in range(8)]
[t.start() for t in threads]; [t.join() for t in threads]
import numpy
assert results == [10] * 8, results
assert np.ndarray is numpy.ndarray and np.random.default_rng is numpy.random.default_rng
print("ok", repr(np))
"""
    result = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120,
                            env={**os.environ, "DJANGO_SETTINGS_MODULE": "config.settings"})
    assert result.stdout.strip() == "ok <numpy, imported>", result.stdout + result.stderr
