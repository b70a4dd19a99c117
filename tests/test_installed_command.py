"""Concord installed as Python users install tools: the wheel built from a fresh clone, installed into a new
virtual environment from the hashed runtime lock file, and its `concord` command run away from any checkout.
`concord run` serves the pages with a worker beside it, its data in CONCORD_HOME; an admin made with `concord
manage` imports a file, which the worker imports with its progress; Ctrl+C stops it all. (Without the demo, which
`make run`'s test loads: the same commands, 40 s less of CI.)"""
from __future__ import annotations

import subprocess

import pytest
import requests

from tests.started import ROOT, free_port, fresh_clone, get_ok, import_a_file, newcomer_env, signed_in, start, wait_for

pytestmark = pytest.mark.slow
UV = ROOT / ".venv" / "bin" / "uv"


def _run(args: list[str], **kwargs) -> subprocess.CompletedProcess:
    done = subprocess.run(args, capture_output=True, text=True, timeout=600, **kwargs)
    assert done.returncode == 0, f"{' '.join(map(str, args))}:\n{done.stdout[-2000:]}\n{done.stderr[-2000:]}"
    return done


def test_the_wheel_installs_and_concord_run_does_its_background_work(tmp_path):
    clone = fresh_clone(tmp_path)
    _run([str(UV), "build", "--wheel", "--out-dir", str(tmp_path / "dist"), str(clone)])
    wheel = next((tmp_path / "dist").glob("concord-*.whl"))
    venv = tmp_path / "venv"
    _run([str(UV), "venv", "--quiet", str(venv), "--python", str(ROOT / ".venv" / "bin" / "python")])
    python = venv / "bin" / "python"
    _run([str(UV), "pip", "install", "--quiet", "--python", str(python), "--require-hashes", "-r",
          str(clone / "requirements" / "base.txt")])
    _run([str(UV), "pip", "install", "--quiet", "--python", str(python), "--no-deps", str(wheel)])

    elsewhere = tmp_path / "elsewhere"  # not a checkout: everything must come from the installed package
    elsewhere.mkdir()
    env = newcomer_env(CONCORD_HOME=str(tmp_path / "home"))
    assert _run([str(venv / "bin" / "concord"), "home"], cwd=elsewhere, env=env).stdout.strip() == env["CONCORD_HOME"]
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    concord = str(venv / "bin" / "concord")
    run = start([concord, "run", "--no-demo", "--port", str(port)], elsewhere, env, tmp_path / "run.log")
    try:
        wait_for("page", lambda: get_ok(f"{base}/accounts/login/"), 300, run)
        assert get_ok(f"{base}/static/concord.css") is not None  # the package's static files
        assert "<h1>登录</h1>" in requests.get(f"{base}/accounts/login/", headers={"Accept-Language": "zh-CN"},
                                               timeout=10).text  # and its catalogue
        wait_for("worker", lambda: get_ok(f"{base}/readyz"), 90, run)
        _run([concord, "manage", "createsuperuser", "--noinput", "--username", "admin", "--email", "a@example.org"],
             cwd=elsewhere, env=env | {"DJANGO_SUPERUSER_PASSWORD": "an installed admin 1"})
        assert "succeeded" in import_a_file(base, signed_in(base, "admin", "an installed admin 1"), tmp_path)
        assert (tmp_path / "home" / "concord.sqlite3").exists() and not (elsewhere / "concord.sqlite3").exists()
    finally:
        status = run.ctrl_c() if run.alive() else run.process.returncode
        left = run.left()
        run.kill()
    assert not left, f"still running after Ctrl+C: {left}"
    assert status == 0, run.output()[-3000:]
