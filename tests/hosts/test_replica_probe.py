"""The replica test's probe says "available" exactly when pg_basebackup's kind of connection is let in: a
physical replication connection, which pg_hba.conf's "replication" lines govern."""
from __future__ import annotations

import os
import shutil
import subprocess

import pytest

from tests.hosts import replica as replicas

PRIMARY = "host=127.0.0.1 port=5432 user=postgres"


def test_the_probe_agrees_with_a_physical_replication_connection():
    if os.geteuid() != 0 or not shutil.which("psql"):
        pytest.skip("the probe's other checks come first without root; psql asks the server")
    if subprocess.run(["pg_isready", "-h", "127.0.0.1", "-p", "5432", "-q"]).returncode != 0:
        pytest.skip("no PostgreSQL on 127.0.0.1:5432")
    asked = subprocess.run(["psql", f"{PRIMARY} replication=true", "-Atc", "IDENTIFY_SYSTEM"],
                           capture_output=True, text=True)
    said = replicas.available(PRIMARY)
    if asked.returncode == 0:
        assert said in ("", f"port {replicas.PORT} is taken"), said
    else:
        assert "refuses replication" in said and "pg_hba.conf" in said, (said, asked.stderr)
