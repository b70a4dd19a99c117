"""Shared by the benchmarks: a fresh PostgreSQL database and Django set up on it."""
from __future__ import annotations

import os
import sys
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_URL = "postgres://postgres@127.0.0.1:5432/concord_bench"


def recreate_database(url: str) -> None:
    import psycopg

    parts = urlsplit(url)
    name = parts.path.lstrip("/")
    admin_url = urlunsplit(parts._replace(scheme="postgresql", path="/postgres"))
    with psycopg.connect(admin_url, autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}"')
        conn.execute(f'CREATE DATABASE "{name}"')


def setup_django(url: str, fresh: bool = True) -> None:
    """Recreate the database (unless `fresh` is off), point Django at it, migrate."""
    sys.path.insert(0, str(ROOT))
    if fresh:
        recreate_database(url)
    os.environ["DATABASE_URL"] = url
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)


def session_key(user) -> str:
    """A signed-in session for `user`, made directly (no password hashing), as a password login records it."""
    from django.contrib.sessions.backends.cached_db import SessionStore

    store = SessionStore()
    store.update({"_auth_user_id": str(user.pk), "_auth_user_backend": "concord.auth.UserRowBackend",
                  "_auth_user_hash": user.get_session_auth_hash()})
    store.create()
    return store.session_key
