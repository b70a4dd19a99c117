"""Production settings come only from the environment, and pass Django's deployment checks."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _manage(*args: str, **env: str) -> subprocess.CompletedProcess:
    # DJANGO_ALLOW_ASYNC_UNSAFE is set by the browser tests and would (rightly) fail the deploy check.
    dropped = {"DEBUG", "SECRET_KEY", "ALLOWED_HOSTS", "DJANGO_ALLOW_ASYNC_UNSAFE"}
    environment = {k: v for k, v in os.environ.items() if k not in dropped}
    environment.update(env)
    return subprocess.run([sys.executable, "manage.py", *args], cwd=ROOT, env=environment,
                          capture_output=True, text=True, timeout=120)


def test_check_deploy_is_silent_with_debug_off_and_a_real_secret():
    result = _manage("check", "--deploy", "--fail-level", "WARNING", DEBUG="0",
                     SECRET_KEY="k" * 20 + "a-real-secret-with-enough-variety-0123456789",
                     ALLOWED_HOSTS="concord.example.org")
    assert result.returncode == 0, result.stderr
    assert "System check identified no issues" in result.stdout


def test_debug_off_without_a_secret_refuses_to_start():
    result = _manage("check", DEBUG="0")
    assert result.returncode != 0 and "SECRET_KEY must be set" in result.stderr


def test_the_wsgi_server_refuses_to_start_without_a_secret():
    # What gunicorn loads: the application object, which reads the settings.
    dropped = {"DEBUG", "SECRET_KEY", "SECRET_KEY_FILE", "DJANGO_ALLOW_ASYNC_UNSAFE"}
    environment = {k: v for k, v in os.environ.items() if k not in dropped} | {"DEBUG": "0"}
    result = subprocess.run([sys.executable, "-c", "import config.wsgi"], cwd=ROOT, env=environment,
                            capture_output=True, text=True, timeout=120)
    assert result.returncode != 0 and "SECRET_KEY must be set" in result.stderr


def test_every_variable_the_settings_read_is_in_the_env_example():
    import re

    settings = (ROOT / "config/settings.py").read_text()
    read = set(re.findall(r'(?:env_\w+|os\.environ\.get)\(\s*"([A-Z][A-Z0-9_]+)"', settings))
    listed = set(re.findall(r"^([A-Z][A-Z0-9_]+)=", (ROOT / ".env.example").read_text(), re.M))
    assert read and not read - listed, sorted(read - listed)


def test_the_operators_endpoints_and_networks_are_read_and_checked():
    shown = _manage("shell", "-c", "from django.conf import settings as s; "
                    "print(sorted((k, v['base_url'], v['api_key']) for k, v in s.LLM_ENDPOINTS.items()))",
                    LLM_BASE_URL="http://127.0.0.1:8000/v1", LLM_API_KEY="k0",
                    LLM_ENDPOINTS="hosted=https://llm.example.org/v1, lab-gpu=http://10.0.0.5/v1",
                    LLM_ENDPOINT_HOSTED_API_KEY="k1")
    assert shown.returncode == 0, shown.stderr
    assert shown.stdout.strip().splitlines()[-1] == ("[('default', 'http://127.0.0.1:8000/v1', 'k0'), ('hosted', "
                                    "'https://llm.example.org/v1', 'k1'), ('lab-gpu', 'http://10.0.0.5/v1', '')]")
    bad = _manage("check", LLM_ENDPOINTS="nourl")
    assert bad.returncode != 0 and "LLM_ENDPOINTS: 'nourl' is not name=http(s)://address" in bad.stderr
    bad = _manage("check", LLM_ALLOWED_NETWORKS="10.0.0.0/33")
    assert bad.returncode != 0 and "LLM_ALLOWED_NETWORKS" in bad.stderr
