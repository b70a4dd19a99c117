"""The second complexity gate: radon's count, which sees the paths mccabe does not (`and`, `or`, the conditions
of a comprehension), holds every function of the product to 15 and fails on a planted sixteenth."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from lint import complexity

ROOT = Path(__file__).resolve().parent.parent


def _function(paths: int) -> str:
    """A function of `paths` paths by radon's count: one, two for a comprehension with a condition, and one for
    each `and`, where C901 sees one branch at most."""
    names = [f"x{i}" for i in range(paths - 2)]
    return f"def planted({', '.join(names)}):\n    return [y for y in ({' and '.join(names)},) if y]\n"


def test_no_function_of_the_product_has_more_than_15_paths():
    assert complexity.over([ROOT / p for p in complexity.PACKAGES]) == []


def test_a_planted_function_of_16_paths_fails_the_gate_and_one_of_15_passes(tmp_path):
    sixteen, fifteen = tmp_path / "sixteen.py", tmp_path / "fifteen.py"
    sixteen.write_text(_function(16), encoding="utf-8")
    fifteen.write_text(_function(15), encoding="utf-8")
    failed = subprocess.run([sys.executable, "-m", "lint.complexity", str(sixteen)], cwd=ROOT, capture_output=True,
                            text=True)
    assert failed.returncode == 1 and "planted (16)" in failed.stdout, failed.stdout + failed.stderr
    passed = subprocess.run([sys.executable, "-m", "lint.complexity", str(fifteen)], cwd=ROOT, capture_output=True,
                            text=True)
    assert passed.returncode == 0, passed.stdout + passed.stderr


def test_mccabe_alone_would_let_the_planted_function_through(tmp_path):
    # What the gate adds: ruff's C901 at 15 passes the same function.
    planted = tmp_path / "planted.py"
    planted.write_text(_function(16), encoding="utf-8")
    ruff = Path(sys.executable).parent / "ruff"
    checked = subprocess.run([str(ruff), "check", "--no-cache", "--isolated", "--select", "C901",
                              "--config", "lint.mccabe.max-complexity = 15", str(planted)],
                             capture_output=True, text=True)
    assert checked.returncode == 0, checked.stdout
