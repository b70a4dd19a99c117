"""The `concord` command of an installed Concord (`pipx install .`, or the wheel CI builds), as `label-studio start`
and `doccano webserver` are theirs:

    concord run [--host H] [--port P] [--no-demo]   the zero-set-up default: SQLite, a worker beside the server,
                                                    demo data and users, everything in the user's data folder
    concord worker                                  a Celery worker for every queue, started again if it fails
    concord manage COMMAND …                        any manage.py command (migrate, createsuperuser, export_corpus …)
    concord home                                    print the data folder

The data folder is CONCORD_HOME, or the platform's user data folder (platformdirs: ~/.local/share/concord on
Linux): the package's own folder is no place to write. `concord run` is `make run` without a checkout.
"""
from __future__ import annotations

import argparse
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from platformdirs import user_data_path

QUEUES = "ingest,summaries,statistics,celery"


def home() -> Path:
    path = Path(os.environ.get("CONCORD_HOME") or user_data_path("concord", appauthor=False))
    path.mkdir(parents=True, exist_ok=True)
    return path


def _environment() -> dict[str, str]:
    return os.environ | {"CONCORD_HOME": str(home()), "DJANGO_SETTINGS_MODULE": "config.settings"}


def _manage(*args: str) -> None:
    done = subprocess.run([sys.executable, "-m", "django", *args], env=_environment())
    if done.returncode:
        sys.exit(done.returncode)


def worker_command(beat: bool) -> list[str]:
    """A worker for every queue under concord.supervise; with its beat beside the server, quieter."""
    command = [sys.executable, "-m", "celery", "-A", "config", "--quiet", "worker", "--queues", QUEUES,
               "--pool=threads", "--concurrency=2"]
    command += ["-B", "--schedule", str(home() / "celerybeat-schedule"), "--loglevel=warning"] if beat else \
        ["--loglevel=info"]
    return [sys.executable, "-m", "concord.supervise", *command]


def run(host: str, port: int, demo: bool) -> int:
    """Migrate, load the demo, then the server and a worker with its beat until Ctrl+C (or SIGTERM) stops both."""
    _manage("migrate", "--noinput", "-v0")
    if demo:
        _manage("load_demo")
        _manage("load_machine_demo")
    print(f"Concord on http://{host}:{port}/, its data in {home()}. Ctrl+C stops it.", flush=True)
    stopping: list[int] = []

    def stop(signum, frame) -> None:
        stopping.append(signum)

    # Before the children start, so that none inherits a SIGINT ignored by the shell that started this one. Each
    # has a process group of its own: Ctrl+C reaches them through this process, once.
    signal.signal(signal.SIGINT, stop)
    signal.signal(signal.SIGTERM, stop)
    env = _environment()
    worker = subprocess.Popen(worker_command(beat=True), env=env, process_group=0)
    server = subprocess.Popen([sys.executable, "-m", "django", "runserver", "--noreload", f"{host}:{port}"], env=env,
                              process_group=0)
    while not stopping and server.poll() is None and worker.poll() is None:
        time.sleep(0.2)
    for process in (server, worker):
        if process.poll() is None:
            process.terminate()  # the server stops at once; the worker's keeper gives its worker a warm shutdown
    for process in (server, worker):
        try:
            process.wait(timeout=60)
        except subprocess.TimeoutExpired:
            process.kill()
    return 0 if stopping else (server.returncode or worker.returncode or 0)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="concord", description="Concord: public issue reports into a labeled "
                                     "research corpus whose reliability can be measured and defended.")
    commands = parser.add_subparsers(dest="command", required=True)
    serve = commands.add_parser("run", help="the app with a worker beside it, on SQLite, with the demo")
    serve.add_argument("--host", default="127.0.0.1")
    serve.add_argument("--port", type=int, default=8000)
    serve.add_argument("--no-demo", action="store_true", help="no demo studies and users")
    commands.add_parser("worker", help="a Celery worker for every queue (set REDIS_URL and DATABASE_URL)")
    manage = commands.add_parser("manage", help="a manage.py command", add_help=False)
    manage.add_argument("args", nargs=argparse.REMAINDER)
    commands.add_parser("home", help="print the data folder")
    options = parser.parse_args(argv)
    if options.command == "run":
        return run(options.host, options.port, not options.no_demo)
    if options.command == "worker":
        return subprocess.run(worker_command(beat=False), env=_environment()).returncode
    if options.command == "home":
        print(home())
        return 0
    return subprocess.run([sys.executable, "-m", "django", *options.args], env=_environment()).returncode


if __name__ == "__main__":
    sys.exit(main())
