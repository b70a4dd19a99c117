"""The demo users' passwords, framed for the terminal and kept in a file only their owner can read, so that a
newcomer finds them after a screenful of install output (`make run` prints the file last)."""
from __future__ import annotations

import os
from pathlib import Path

from django.conf import settings


def framed(passwords: dict[str, str]) -> str:
    lines = ["Demo users (log in at the address below):", *(f"  {name:<6} {password}" for name, password in
                                                          passwords.items()),
             f"Kept in {os.path.relpath(settings.DEMO_PASSWORDS_FILE, settings.DATA_DIR)}; "
             "`make demo-passwords` sets new ones."]
    width = max(len(line) for line in lines)
    rule = "+" + "-" * (width + 2) + "+"
    return "\n".join([rule, *(f"| {line:<{width}} |" for line in lines), rule]) + "\n"


def keep(passwords: dict[str, str]) -> Path:
    """Write the framed passwords to the demo file, readable by its owner only."""
    path = Path(settings.DEMO_PASSWORDS_FILE)
    path.parent.mkdir(parents=True, exist_ok=True)
    descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(descriptor, "w", encoding="utf-8") as out:
        out.write(framed(passwords))
    os.chmod(path, 0o600)
    return path
