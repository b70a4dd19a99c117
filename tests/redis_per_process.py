"""A Redis database of its own for each test process: loaded with `-p tests.redis_per_process` (as `make test`
does), so that it runs before Django reads its settings.

Tests that start a Celery worker send tasks through Redis's queues and wait for that worker to do them; two test
processes sharing a database would take each other's tasks, answer each other's pings and read each other's
cache. pytest-xdist names its processes gw0, gw1, …: process n keeps REDIS_URL's database minus n (15 and 14 in
CI). A test that starts servers of its own asks `tests.started.spare_redis_url()` for one nothing else uses.
"""
from __future__ import annotations

import os
from urllib.parse import urlsplit

from tests.started import SPARE_REDIS_FROM, process_index, with_redis_database

if os.environ.get("REDIS_URL"):
    _base = int(urlsplit(os.environ["REDIS_URL"]).path.strip("/") or 0)
    if _base - process_index() <= SPARE_REDIS_FROM:
        raise RuntimeError(f"REDIS_URL's database {_base} leaves test process {process_index()} no database of its "
                           f"own above the spare ones (0 to {SPARE_REDIS_FROM}): use "
                           f"{SPARE_REDIS_FROM + 1 + process_index()} or more (CI uses 15)")
    os.environ["REDIS_URL"] = with_redis_database(os.environ["REDIS_URL"], _base - process_index())
