"""Concord as it runs on several servers, on one machine: each host a network namespace of its own.

Two web hosts (gunicorn) and two worker hosts (a Celery worker per queue group on each) reach the shared
services over a bridge, as separate servers reach them over a network: PostgreSQL through PgBouncer in
transaction mode, and Redis. HAProxy balances the web hosts and checks their health. Every address is the
cluster's own (a private /24 on its own bridge); nothing leaves the machine. Needs root, iproute2, Debian's
haproxy, pgbouncer and redis-server; `available()` says what is missing.

Killing a host kills every process in its namespace at once, as a host that loses its power stops them: the
kernel closes their sockets, so PostgreSQL and PgBouncer see the connections end.
"""
from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from contextlib import suppress
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
WEB_PORT = 8000
BOUNCER_PORT = 6432
REDIS_PORT = 6390
HOST_NAME = "concord.test"
TOOLS = ("ip", "haproxy", "pgbouncer", "redis-server")
# The queue groups: each worker host runs one worker per group, so that a long ingest never delays statistics.
GROUPS = {"ingest": "ingest", "stats": "statistics,summaries,celery"}


def available() -> str:
    """Why the cluster cannot start here ("" when it can)."""
    if os.geteuid() != 0:
        return "network namespaces need root"
    missing = [tool for tool in TOOLS if not (shutil.which(tool) or Path(f"/usr/sbin/{tool}").exists())]
    if missing:
        return f"not installed: {', '.join(missing)} (apt-get install iproute2 haproxy pgbouncer redis-server)"
    probe = f"ccprobe{os.getpid() % 100000}"
    made = subprocess.run(["ip", "netns", "add", probe], capture_output=True, text=True)
    if made.returncode:
        return f"ip netns add fails here: {made.stderr.strip()}"
    subprocess.run(["ip", "netns", "del", probe], capture_output=True)
    return ""


def _binary(name: str) -> str:
    return shutil.which(name) or f"/usr/sbin/{name}"


def _sh(*args: str) -> None:
    subprocess.run(args, check=True, capture_output=True, text=True)


def wait_for_port(host: str, port: int, seconds: float = 60, what: str = "") -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        with suppress(OSError), socket.create_connection((host, port), timeout=0.5):
            return
        time.sleep(0.1)
    raise TimeoutError(f"{what or 'a service'} did not listen on {host}:{port} within {seconds:.0f} s")


@dataclass
class Host:
    """A server: a network namespace with one address on the bridge, and the processes started in it."""

    name: str
    namespace: str
    address: str
    processes: list[subprocess.Popen] = field(default_factory=list)

    def pids(self) -> list[int]:
        listed = subprocess.run(["ip", "netns", "pids", self.namespace], capture_output=True, text=True).stdout
        return [int(pid) for pid in listed.split()]

    def kill(self) -> None:
        """Every process of the host at once, children included (SIGKILL: nothing of theirs runs after)."""
        for _ in range(5):
            pids = self.pids()
            if not pids:
                break
            for pid in pids:
                with suppress(ProcessLookupError):
                    os.kill(pid, signal.SIGKILL)
            time.sleep(0.1)
        for process in self.processes:
            with suppress(subprocess.TimeoutExpired):
                process.wait(timeout=10)
        self.processes.clear()


class Cluster:
    """The bridge, the hosts, the shared services and the balancer; a context manager that removes them all."""

    def __init__(self, database_url: str, *, env: dict[str, str] | None = None, web_threads: int = 8):
        tag = f"{os.getpid() % 10000:04d}"
        self.subnet = _unused_subnet()
        self.gateway = f"{self.subnet}.1"
        self.bridge = f"ccbr{tag}"
        self.tag = tag
        self.database_url = database_url
        self.env = env or {}
        self.web_threads = web_threads
        self.folder = Path(tempfile.mkdtemp(prefix="concord-cluster-"))
        os.chmod(self.folder, 0o777)  # PgBouncer runs as postgres and writes its log here
        self.webs = [Host(f"web{n}", f"cc{tag}w{n}", f"{self.subnet}.{10 + n}") for n in (1, 2)]
        self.workers = [Host(f"work{n}", f"cc{tag}k{n}", f"{self.subnet}.{20 + n}") for n in (1, 2)]
        self.balancer_port = 0
        self.bouncer: subprocess.Popen | None = None
        self.services: list[subprocess.Popen] = []

    # -- the network ----------------------------------------------------------------------------------------
    def _network(self) -> None:
        _sh("ip", "link", "add", self.bridge, "type", "bridge")
        _sh("ip", "addr", "add", f"{self.gateway}/24", "dev", self.bridge)
        _sh("ip", "link", "set", self.bridge, "up")
        for n, host in enumerate(self.webs + self.workers):
            outside = f"cc{self.tag}v{n}"
            _sh("ip", "netns", "add", host.namespace)
            _sh("ip", "link", "add", outside, "type", "veth", "peer", "name", "eth0", "netns", host.namespace)
            _sh("ip", "link", "set", outside, "master", self.bridge, "up")
            inside = ["ip", "netns", "exec", host.namespace]
            _sh(*inside, "ip", "addr", "add", f"{host.address}/24", "dev", "eth0")
            _sh(*inside, "ip", "link", "set", "eth0", "up")
            _sh(*inside, "ip", "link", "set", "lo", "up")

    def _remove_network(self) -> None:
        for host in self.webs + self.workers:
            subprocess.run(["ip", "netns", "del", host.namespace], capture_output=True)
        subprocess.run(["ip", "link", "del", self.bridge], capture_output=True)

    # -- shared services ------------------------------------------------------------------------------------
    def _redis(self) -> None:
        self.services.append(subprocess.Popen(
            [_binary("redis-server"), "--bind", self.gateway, "--port", str(REDIS_PORT), "--save", "",
             "--appendonly", "no", "--dir", str(self.folder), "--protected-mode", "no"],
            stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT))
        wait_for_port(self.gateway, REDIS_PORT, what="Redis")

    @property
    def redis_url(self) -> str:
        return f"redis://{self.gateway}:{REDIS_PORT}/0"

    def start_bouncer(self) -> None:
        from urllib.parse import urlsplit

        url = urlsplit(self.database_url)
        user = url.username or "postgres"
        ini = self.folder / "pgbouncer.ini"
        ini.write_text(
            f"[databases]\n* = host={url.hostname or '127.0.0.1'} port={url.port or 5432}\n"
            f"[pgbouncer]\nlisten_addr = {self.gateway}\nlisten_port = {BOUNCER_PORT}\nauth_type = trust\n"
            f"auth_file = {self.folder}/users.txt\npool_mode = transaction\nmax_client_conn = 1000\n"
            f"default_pool_size = 20\nunix_socket_dir =\nlogfile = {self.folder}/pgbouncer.log\n"
            # A client gone mid-transaction (its host died without closing its socket) holds its server
            # connection, and the rows it wrote stay locked, until this ends it.
            "idle_transaction_timeout = 60\n")
        (self.folder / "users.txt").write_text(f'"{user}" ""\n')
        # PgBouncer will not run as root; -u switches to the postgres user.
        self.bouncer = subprocess.Popen([_binary("pgbouncer"), "-u", "postgres", str(ini)],
                                        stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT)
        wait_for_port(self.gateway, BOUNCER_PORT, what="PgBouncer")

    def stop_bouncer(self) -> None:
        """PgBouncer stopped at once (SIGINT: every client and server connection closed)."""
        if self.bouncer:
            self.bouncer.send_signal(signal.SIGINT)
            self.bouncer.wait(timeout=30)
            self.bouncer = None

    @property
    def pooled_url(self) -> str:
        from urllib.parse import urlsplit

        url = urlsplit(self.database_url)
        return url._replace(netloc=f"{url.username or 'postgres'}@{self.gateway}:{BOUNCER_PORT}").geturl()

    def _balancer(self) -> None:
        self.balancer_port = _free_port()
        servers = "\n".join(f"    server {h.name} {h.address}:{WEB_PORT} check" for h in self.webs)
        config = self.folder / "haproxy.cfg"
        config.write_text(f"""global
    maxconn 4000
    stats socket {self.folder}/haproxy.sock mode 600 level admin
defaults
    mode http
    timeout connect 1s
    timeout client 90s
    timeout server 60s
    timeout http-keep-alive 75s
    # A request whose connection to a host fails is sent to the other host: it never reached the first.
    retries 3
    option redispatch 1
    retry-on conn-failure
frontend concord
    bind 127.0.0.1:{self.balancer_port}
    default_backend web
backend web
    balance roundrobin
    option httpchk
    http-check send meth GET uri /readyz?role=web ver HTTP/1.1 hdr Host {HOST_NAME}
    http-check expect status 200
    # Two failed checks half a second apart take a host out; two good ones put it back. A dead host refuses the
    # check's connection at once; a live one busy with the load may take seconds to answer it, and is not dead
    # (without `timeout check` a check waits `inter`, half a second, and both hosts go out under load).
    default-server inter 500ms fall 2 rise 2
    timeout check 5s
{servers}
""")
        self.services.append(subprocess.Popen([_binary("haproxy"), "-db", "-f", str(config)],
                                              stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT))
        wait_for_port("127.0.0.1", self.balancer_port, what="HAProxy")

    def server_states(self) -> dict[str, str]:
        """What the balancer thinks of each web host: UP, DOWN, ..."""
        with socket.socket(socket.AF_UNIX) as sock:
            sock.connect(str(self.folder / "haproxy.sock"))
            sock.sendall(b"show stat\n")
            data = b""
            while chunk := sock.recv(65536):
                data += chunk
        states = {}
        lines = data.decode().splitlines()
        header = lines[0].lstrip("# ").split(",")
        for line in lines[1:]:
            row = dict(zip(header, line.split(","), strict=False))
            if row.get("pxname") == "web" and row.get("svname", "").startswith("web"):
                states[row["svname"]] = row["status"]
        return states

    def wait_for_state(self, host: Host, state: str, seconds: float = 30) -> float:
        """Waits until the balancer calls the host `state`; the monotonic time it was first seen so."""
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            if self.server_states().get(host.name, "").startswith(state):
                return time.monotonic()
            time.sleep(0.05)
        raise TimeoutError(f"the balancer did not call {host.name} {state} within {seconds:.0f} s: "
                           f"{self.server_states()}")

    # -- the application's hosts ----------------------------------------------------------------------------
    def app_env(self) -> dict[str, str]:
        return {**os.environ, "DEBUG": "0", "SECRET_KEY": "cluster-only-not-a-secret-0123456789abcdefghijklmnop",
                "ALLOWED_HOSTS": f"{HOST_NAME},127.0.0.1", "SECURE_SSL_REDIRECT": "0", "SECURE_COOKIES": "0",
                "DATABASE_URL": self.pooled_url, "DB_BEHIND_PGBOUNCER": "1", "REDIS_URL": self.redis_url,
                "PYTHONUNBUFFERED": "1", **self.env}

    def _in(self, host: Host, args: list[str], log: str) -> subprocess.Popen:
        output = open(self.folder / f"{host.name}-{log}.log", "ab")  # noqa: SIM115 - the process holds it
        process = subprocess.Popen(["ip", "netns", "exec", host.namespace, *args], cwd=ROOT, env=self.app_env(),
                                   stdout=output, stderr=subprocess.STDOUT)
        output.close()
        host.processes.append(process)
        return process

    def start_web(self, host: Host) -> None:
        self._in(host, [sys.executable, "-m", "gunicorn", "config.wsgi", "--config", "gunicorn.conf.py",
                        "--bind", f"{host.address}:{WEB_PORT}", "--workers", "1", "--threads",
                        str(self.web_threads), "--log-level", "warning"], "gunicorn")

    def start_workers(self, host: Host) -> None:
        for group, queues in GROUPS.items():
            self._in(host, [sys.executable, "-m", "celery", "-A", "config", "worker", "--pool=threads",
                            "--concurrency=2", "--queues", queues, "--hostname", f"{group}@{host.name}",
                            "--loglevel=warning", "--without-gossip", "--without-mingle"], f"celery-{group}")

    def wait_for_workers(self, hosts: list[Host], seconds: float = 90) -> None:
        """Until every worker of these hosts answers a ping through the cluster's Redis."""
        from celery import Celery

        wanted = {f"{group}@{host.name}" for host in hosts for group in GROUPS}
        app = Celery(broker=self.redis_url, set_as_current=False)
        deadline = time.monotonic() + seconds
        try:
            while time.monotonic() < deadline:
                answered = {name for reply in app.control.ping(timeout=1.0) or [] for name in reply}
                if wanted <= answered:
                    return
        finally:
            app.close()
        raise TimeoutError(f"workers {sorted(wanted)} did not all answer within {seconds:.0f} s")

    def send(self, celery_task, *args) -> None:
        """Send a task through the cluster's Redis (the test process's own broker is another). By an app of its
        own, never made the current one: shared tasks follow the current app, and the process's later tasks
        would go to the cluster's Redis once the cluster is gone."""
        from celery import Celery

        from concord import jobs

        app = Celery(broker=self.redis_url, set_as_current=False)
        try:
            app.send_task(celery_task.name, args=args, **jobs.route(celery_task.name, args, {}, {}))
        finally:
            app.close()

    def log(self, name: str) -> str:
        path = self.folder / name
        return path.read_text(errors="replace") if path.exists() else ""

    # -- life -----------------------------------------------------------------------------------------------
    def __enter__(self) -> Cluster:
        try:
            self._network()
            self._redis()
            self.start_bouncer()
            subprocess.run([sys.executable, "manage.py", "collectstatic", "--noinput", "-v", "0"], cwd=ROOT,
                           env=self.app_env(), check=True)
            for host in self.webs:
                self.start_web(host)
            for host in self.workers:
                self.start_workers(host)
            for host in self.webs:
                wait_for_port(host.address, WEB_PORT, what=f"gunicorn on {host.name}")
            self._balancer()
            for host in self.webs:
                self.wait_for_state(host, "UP")
            self.wait_for_workers(self.workers)
        except BaseException:
            self.__exit__(None, None, None)
            raise
        return self

    def __exit__(self, *exc) -> None:
        for host in self.webs + self.workers:
            host.kill()
        self.stop_bouncer()
        for process in self.services:
            process.terminate()
            with suppress(subprocess.TimeoutExpired):
                process.wait(timeout=10)
        self._remove_network()
        shutil.rmtree(self.folder, ignore_errors=True)


def _unused_subnet() -> str:
    """A /24 of the private range that no route of this machine uses, picked per run so that two runs on one
    machine do not meet."""
    routes = subprocess.run(["ip", "-4", "route"], capture_output=True, text=True).stdout
    for n in range(250):
        subnet = f"10.{200 + (os.getpid() + n) % 50}.{(os.getpid() // 50 + n) % 250}"
        if f"{subnet}." not in routes:
            return subnet
    raise RuntimeError("no unused 10.x.y.0/24 on this machine")


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]
