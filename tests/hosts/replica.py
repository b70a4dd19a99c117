"""A PostgreSQL streaming replica of the local server, on another port, made and removed by a test.

pg_basebackup copies the primary (127.0.0.1:5432) and writes the standby's connection to it; the copy runs as a
hot standby on 127.0.0.1:5433 with a configuration of its own. Replication must be allowed on the primary
(`host replication all 127.0.0.1/32 trust` in pg_hba.conf, which CI adds); `available()` says when it is not.
`pause()` stops the replay of the primary's writes (the replica's data stays as it was: lag, as long as the test
wants), `resume()` lets it catch up.
"""
from __future__ import annotations

import glob
import os
import pwd
import shutil
import subprocess
import tempfile
import time
from pathlib import Path

import psycopg

PORT = 5433


def _bin(name: str) -> str:
    found = sorted(glob.glob(f"/usr/lib/postgresql/*/bin/{name}"))
    return found[-1] if found else (shutil.which(name) or name)


def available(primary: str = "host=127.0.0.1 port=5432 user=postgres") -> str:
    """Why a replica cannot be made here ("" when it can)."""
    if os.geteuid() != 0:
        return "the replica runs as the postgres user: needs root"
    try:
        pwd.getpwnam("postgres")
    except KeyError:
        return "no postgres user"
    try:
        # A physical replication connection, as pg_basebackup and the replica's walreceiver make: pg_hba.conf's
        # "replication" lines govern it. (A logical one, replication=database, is let in by the ordinary lines,
        # so it said "available" where pg_basebackup was then refused.) The simple query protocol, the only one a
        # replication connection speaks: psycopg's client-side cursor.
        with psycopg.connect(f"{primary} replication=true", autocommit=True,
                             cursor_factory=psycopg.ClientCursor) as conn:
            conn.execute("IDENTIFY_SYSTEM")
    except psycopg.Error as exc:
        return (f"the primary refuses replication ({str(exc).strip()}): add "
                "'host replication all 127.0.0.1/32 trust' to its pg_hba.conf and reload it")
    return f"port {PORT} is taken" if _listening() else ""


def _listening() -> bool:
    import socket

    with socket.socket() as sock:
        sock.settimeout(0.5)
        return sock.connect_ex(("127.0.0.1", PORT)) == 0


def _as_postgres(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(["runuser", "-u", "postgres", "--", *args], capture_output=True, text=True, check=True)


class Replica:
    """A context manager: the replica, started and caught up; removed on leaving."""

    def __init__(self, primary_host: str = "127.0.0.1", primary_port: int = 5432):
        self.primary = (primary_host, primary_port)
        self.folder = Path(tempfile.mkdtemp(prefix="concord-replica-"))
        self.data = self.folder / "data"

    def url(self, database: str) -> str:
        return f"postgres://postgres@127.0.0.1:{PORT}/{database}"

    def _sql(self, query: str):
        with psycopg.connect(f"host=127.0.0.1 port={PORT} user=postgres dbname=postgres", autocommit=True) as conn:
            return conn.execute(query).fetchone()

    def __enter__(self) -> Replica:
        shutil.chown(self.folder, "postgres", "postgres")
        try:
            _as_postgres(_bin("pg_basebackup"), "-h", self.primary[0], "-p", str(self.primary[1]), "-U", "postgres",
                         "-D", str(self.data), "-X", "stream", "-R", "-c", "fast")
            (self.data / "postgresql.conf").write_text(
                f"port = {PORT}\nlisten_addresses = '127.0.0.1'\nunix_socket_directories = '{self.folder}'\n"
                "hot_standby = on\nmax_connections = 100\nshared_buffers = 64MB\n"
                # A long export on the replica is not cancelled by the primary's vacuum meanwhile.
                "hot_standby_feedback = on\n")
            (self.data / "pg_hba.conf").write_text("local all all trust\nhost all all 127.0.0.1/32 trust\n")
            for name in ("postgresql.conf", "pg_hba.conf"):
                shutil.chown(self.data / name, "postgres", "postgres")
            _as_postgres(_bin("pg_ctl"), "-D", str(self.data), "-l", str(self.folder / "log"), "-w", "start")
            self.wait_caught_up()
        except BaseException:
            self.__exit__(None, None, None)
            raise
        return self

    def __exit__(self, *exc) -> None:
        if (self.data / "postmaster.pid").exists():
            subprocess.run(["runuser", "-u", "postgres", "--", _bin("pg_ctl"), "-D", str(self.data), "-m",
                            "immediate", "-w", "stop"], capture_output=True)
        shutil.rmtree(self.folder, ignore_errors=True)

    def log(self) -> str:
        path = self.folder / "log"
        return path.read_text(errors="replace") if path.exists() else ""

    def pause(self, seconds: float = 30) -> None:
        """Until replay has stopped. A request takes effect when the replica next reads a record, and may let
        that one through, so records are written until the replica says it is paused: everything it holds from
        then on was committed before this returned, however busy the primary's other databases are."""
        self._sql("SELECT pg_wal_replay_pause()")
        deadline = time.monotonic() + seconds
        with psycopg.connect(f"host={self.primary[0]} port={self.primary[1]} user=postgres dbname=postgres",
                             autocommit=True) as conn:
            while self._sql("SELECT pg_get_wal_replay_pause_state()")[0] != "paused":
                if time.monotonic() > deadline:
                    raise TimeoutError(f"the replica did not pause within {seconds:.0f} s:\n{self.log()[-2000:]}")
                conn.execute("SELECT pg_logical_emit_message(false, 'concord-test', 'pause')")
                time.sleep(0.02)

    def resume(self) -> None:
        self._sql("SELECT pg_wal_replay_resume()")

    def wait_caught_up(self, seconds: float = 60) -> None:
        """Until the replica has replayed everything the primary has written so far."""
        with psycopg.connect(f"host={self.primary[0]} port={self.primary[1]} user=postgres dbname=postgres",
                             autocommit=True) as conn:
            position = conn.execute("SELECT pg_current_wal_lsn()::text").fetchone()[0]
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            try:
                if self._sql(f"SELECT pg_last_wal_replay_lsn() >= '{position}'::pg_lsn")[0]:
                    return
            except psycopg.OperationalError:
                pass  # still starting
            time.sleep(0.1)
        raise TimeoutError(f"the replica did not catch up within {seconds:.0f} s:\n{self.log()[-2000:]}")
