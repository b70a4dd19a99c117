"""Instructions per labeling round trip, counted by valgrind's callgrind: the one figure of the round trip's cost
that does not move with what else the machine is doing (the same code and data give the same count, within a
fraction of a percent), where CPU time on a shared machine moves by half.

    python bench/instructions.py STUDY_NAME USERNAME [--round-trips 20]

Run by bench_label.py on its study. Inside the process: the WSGI application called directly with the
requests an annotator's browser sends (session cookie, CSRF header, JSON), so the count is Concord's and
Django's work, without gunicorn's or a client's. Counting starts after five warm-up round trips.
"""
from __future__ import annotations

import io
import json
import os
import subprocess
import sys


def main() -> None:
    study_name, username, round_trips = sys.argv[1], sys.argv[2], int(sys.argv[3])
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    from config.wsgi import application  # noqa: I001 — after the settings module is named
    from django.contrib.auth import get_user_model

    from annotation.models import Study
    from common import session_key
    from taxonomy.models import Category

    study = Study.objects.get(name=study_name)
    theme = Category.objects.filter(codebook=study.codebook, level=Category.Level.THEME).order_by("pk")[1]
    user = get_user_model().objects.get(username=username)
    session = session_key(user)
    token = "c" * 32

    def call(method: str, path: str, body: dict | None = None) -> tuple[str, bytes]:
        data = json.dumps(body).encode() if body is not None else b""
        environ = {
            "REQUEST_METHOD": method, "PATH_INFO": path, "QUERY_STRING": "", "SERVER_NAME": "testserver",
            "SERVER_PORT": "80", "HTTP_HOST": "testserver", "wsgi.url_scheme": "http",
            "wsgi.input": io.BytesIO(data), "CONTENT_LENGTH": str(len(data)),
            "CONTENT_TYPE": "application/json" if body is not None else "",
            "HTTP_COOKIE": f"sessionid={session}; csrftoken={token}", "HTTP_X_CSRFTOKEN": token,
            "HTTP_REFERER": "http://127.0.0.1/", "HTTP_ACCEPT": "application/json", "REMOTE_ADDR": "127.0.0.1",
            "wsgi.errors": sys.stderr, "wsgi.version": (1, 0), "wsgi.multithread": True,
            "wsgi.multiprocess": True, "wsgi.run_once": False, "SERVER_PROTOCOL": "HTTP/1.1",
        }
        status = []
        out = b"".join(application(environ, lambda s, h, e=None: status.append(s)))
        return status[0], out

    def round_trip() -> None:
        _, out = call("GET", f"/api/studies/{study.pk}/queue/next/")
        issue = json.loads(out)["report"]["id"]
        status, out = call("POST", f"/api/studies/{study.pk}/labels/",
                           {"issue": issue, "type": theme.parent_id, "theme": theme.pk})
        assert status.startswith("201"), out[:300]

    for _ in range(5):
        round_trip()
    control = ["callgrind_control", "-i"]
    subprocess.run([*control, "on", str(os.getpid())], capture_output=True, check=True)
    for _ in range(round_trips):
        round_trip()
    subprocess.run([*control, "off", str(os.getpid())], capture_output=True, check=True)


def count(study_name: str, username: str, round_trips: int = 20) -> float | None:
    """Millions of instructions per round trip; None where valgrind is not installed."""
    import re
    import shutil
    import tempfile

    if not shutil.which("valgrind"):
        return None
    with tempfile.TemporaryDirectory() as folder:
        result = subprocess.run(
            ["valgrind", "--tool=callgrind", "--instr-atstart=no", f"--callgrind-out-file={folder}/out",
             sys.executable, __file__, study_name, username, str(round_trips)],
            capture_output=True, text=True, cwd=os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    found = re.search(r"I\s+refs:\s+([\d,]+)", result.stderr)
    if result.returncode or not found:
        raise RuntimeError(result.stderr[-2000:])
    return int(found.group(1).replace(",", "")) / round_trips / 1e6


if __name__ == "__main__":
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    import django

    # As bench_label.py's in-process measurements: plain http to "testserver".
    os.environ.update(DJANGO_SETTINGS_MODULE="config.settings", ALLOWED_HOSTS="testserver", SECURE_SSL_REDIRECT="0")
    django.setup()
    main()
