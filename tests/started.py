"""Commands started as people start them: from a fresh clone, with a newcomer's environment, in a process group of
their own, and stopped as Ctrl+C stops them (SIGINT to the whole group, as a terminal sends it)."""
from __future__ import annotations

import os
import re
import signal
import socket
import subprocess
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import requests

ROOT = Path(__file__).resolve().parent.parent
# What this test run's own set-up puts in the environment; a newcomer's shell has none of it.
OURS = {"DATABASE_URL", "DATABASE_REPLICA_URL", "REDIS_URL", "CELERY_EAGER", "CELERY_BROKER_DIR", "CACHE_DIR",
        "DJANGO_SETTINGS_MODULE", "DEMO_PASSWORDS_FILE", "VIRTUAL_ENV", "PYTHONPATH"}


def newcomer_env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in OURS and not k.startswith(("CONCORD_", "PYTEST_"))}
    # The clone's own venv, not the one running the tests.
    env["PATH"] = os.pathsep.join(p for p in env.get("PATH", "").split(os.pathsep)
                                  if not p.startswith(str(ROOT / ".venv")))
    return env | extra


def fresh_clone(where: Path) -> Path:
    """A clone of the committed tree, as a newcomer gets it: nothing untracked, no venv, no var/."""
    dest = where / "concord"
    subprocess.run(["git", "clone", "--quiet", "--no-hardlinks", str(ROOT), str(dest)], check=True, timeout=120)
    return dest


# Redis databases from this one down are for servers a test starts (the README's commands): one per test process,
# below every test process's own (tests/redis_per_process.py).
SPARE_REDIS_FROM = 9


def process_index() -> int:
    """pytest-xdist's process number (gw0, gw1, …); 0 without it."""
    worker = os.environ.get("PYTEST_XDIST_WORKER", "")
    return int(worker[2:]) if worker.startswith("gw") and worker[2:].isdigit() else 0


def with_redis_database(url: str, number: int) -> str:
    parts = urlsplit(url)
    return urlunsplit(parts._replace(path=f"/{number}"))


def spare_redis_url() -> str:
    """A Redis database that neither this run's test processes nor their workers use."""
    return with_redis_database(os.environ["REDIS_URL"], SPARE_REDIS_FROM - process_index())


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _default_sigint() -> None:
    # A shell that starts a command in the background starts it with SIGINT ignored, and Python then never
    # raises KeyboardInterrupt: the command would be deaf to the Ctrl+C this test sends. A terminal's is not.
    signal.signal(signal.SIGINT, signal.SIG_DFL)


@dataclass
class Started:
    process: subprocess.Popen
    log: Path
    _stopped_tree: dict[int, str] = field(default_factory=dict)

    def output(self) -> str:
        return self.log.read_text(errors="replace")

    def alive(self) -> bool:
        return self.process.poll() is None

    def tree(self) -> dict[int, str]:
        """Every process the command started, its children's children included (by pid: command line), whatever
        process group they put themselves in."""
        parents: dict[int, int] = {}
        lines: dict[int, str] = {}
        for entry in Path("/proc").iterdir():
            if not entry.name.isdigit():
                continue
            try:
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
                if fields[0] == "Z":
                    continue
                parents[int(entry.name)] = int(fields[1])
                lines[int(entry.name)] = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
            except (OSError, IndexError, ValueError):
                continue
        found, frontier = {}, [self.process.pid]
        while frontier:
            pid = frontier.pop()
            if pid in lines:
                found[pid] = lines[pid]
            frontier.extend(child for child, parent in parents.items() if parent == pid and child not in found)
        return found

    def left(self) -> list[str]:
        """Of the processes the command had started when it was stopped, those still running."""
        alive = []
        for pid, line in self._stopped_tree.items():
            try:
                state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
            except (OSError, IndexError):
                continue
            if state != "Z":
                alive.append(f"{pid} {line}")
        return alive

    def ctrl_c(self, timeout: float = 60) -> int:
        """Stop it as Ctrl+C in its terminal does (SIGINT to its process group); its exit status."""
        self._stopped_tree = self.tree()
        os.killpg(self.process.pid, signal.SIGINT)
        try:
            return self.process.wait(timeout=timeout)
        finally:
            deadline = time.monotonic() + timeout
            while self.left() and time.monotonic() < deadline:
                time.sleep(0.5)

    def kill(self) -> None:
        """Whatever is left of it, killed (a test's clean-up)."""
        for pid in {*self.tree(), *(int(line.split()[0]) for line in self.left())}:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        try:
            os.killpg(self.process.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        self.process.wait(timeout=30)


def start(args: list[str], cwd: Path, env: dict[str, str], log: Path) -> Started:
    out = log.open("wb")
    process = subprocess.Popen(args, cwd=cwd, env=env, stdout=out, stderr=subprocess.STDOUT,
                               stdin=subprocess.DEVNULL, process_group=0, preexec_fn=_default_sigint)
    return Started(process, log)


def wait_for(what: str, check: Callable[[], object], seconds: float, started: Started | None = None,
             every: float = 1.0):
    """check() until it gives something true, failing with what the command printed if it dies or time runs out."""
    deadline = time.monotonic() + seconds
    last: object = None
    while time.monotonic() < deadline:
        if started is not None and not started.alive():
            raise AssertionError(f"stopped before {what}:\n{started.output()[-4000:]}")
        try:
            last = check()
        except (requests.RequestException, OSError) as exc:
            last = exc  # not up yet
        else:
            if last:
                return last
        time.sleep(every)
    tail = started.output()[-4000:] if started is not None else ""
    raise AssertionError(f"no {what} within {seconds:.0f} s (last: {last!r}):\n{tail}")


def get_ok(url: str, **kwargs) -> requests.Response | None:
    answer = requests.get(url, timeout=10, **kwargs)
    return answer if answer.status_code == 200 else None


# Pages as a person uses them: signed in, forms sent with their CSRF token.
ISSUES = 1500


def demo_passwords(folder: Path) -> dict[str, str]:
    """The demo users' passwords from the frame `make demo` writes."""
    text = (folder / "var" / "demo-passwords.txt").read_text()
    return dict(re.findall(r"^\|\s+(\w+)\s+(\S+)\s+\|$", text, re.MULTILINE))


def manage_in(clone: Path, env: dict[str, str], *args: str, **extra: str) -> None:
    """A manage.py command in a clone, with its own virtual environment, as its admin would type it."""
    done = subprocess.run([str(clone / ".venv" / "bin" / "python"), "manage.py", *args], cwd=clone,
                          env=env | extra, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr


def signed_in(base: str, username: str, password: str) -> requests.Session:
    session = requests.Session()
    session.get(f"{base}/accounts/login/", timeout=10)
    answer = session.post(f"{base}/accounts/login/", timeout=10, allow_redirects=False, data={
        "username": username, "password": password, "csrfmiddlewaretoken": session.cookies["csrftoken"]})
    assert answer.status_code == 302, answer.text[-2000:]
    return session


def post_form(session: requests.Session, url: str, data: dict, **kwargs) -> requests.Response:
    page = session.get(url if not url.endswith("/ingest/") else url.removesuffix("ingest/"), timeout=10)
    token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page.text).group(1)
    return session.post(url, data=data | {"csrfmiddlewaretoken": token}, timeout=30, **kwargs)


def import_a_file(base: str, session: requests.Session, tmp_path) -> str:
    """An admin adds a file source and uploads issues, as on the sources page; the run's progress fragment, polled
    as the page polls it, until it has finished."""
    answer = post_form(session, f"{base}/sources/", {"platform": "file", "full_name": "newcomer/issues",
                                                  "display_name": "", "kind": "toolkit"})
    assert answer.status_code == 200 and "/sources/" in answer.url, answer.text[-2000:]
    source = re.search(r"/sources/(\d+)/", answer.url).group(1)
    path = tmp_path / "issues.jsonl"
    path.write_text("\n".join(f'{{"number": {n}, "title": "Issue {n}", "body": "CUDA out of memory {n}"}}'
                              for n in range(1, ISSUES + 1)))
    with path.open("rb") as file:
        answer = post_form(session, f"{base}/sources/{source}/ingest/", {"upload": "1", "format": ""},
                       files={"file": ("issues.jsonl", file, "application/x-ndjson")})
    run = re.search(r'id="run-(\d+)"', answer.text).group(1)
    seen = set()

    def finished():
        fragment = session.get(f"{base}/runs/{run}/progress/", timeout=10, headers={"HX-Request": "true"}).text
        status = re.search(r'data-status="(\w+)"', fragment).group(1)
        seen.add(status)
        return fragment if status in {"succeeded", "failed"} else None

    fragment = wait_for("the file import's end", finished, 180, every=0.5)
    assert 'data-status="succeeded"' in fragment, fragment
    assert re.search(rf"<dt>New</dt><dd>{ISSUES}</dd>", fragment), fragment
    return " ".join(sorted(seen))
