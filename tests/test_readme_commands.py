"""Every command line in the README's and the manual's code blocks is run, dry: `make` targets with `make -n`,
`manage.py` commands by their parser (each option the line uses must be one it takes), Celery and the other
programs with `--help` after the line's own options, which Celery checks before it answers. A renamed command,
target or flag fails here, as `--quiet` after `worker` would have."""
from __future__ import annotations

import re
import shlex
import subprocess
from pathlib import Path

import pytest
from django.core.management import get_commands, load_command_class

ROOT = Path(__file__).resolve().parent.parent
BIN = ROOT / ".venv" / "bin"
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
# Programs that are not Concord's; each is someone else's to name rightly. `docker compose` is checked against the
# Compose specification in test_compose_file.py (no engine runs here).
NOT_OURS = {"echo", "export", "createdb", "docker", "systemctl", "curl", "cd", "pipx"}
FENCE = re.compile(r"^```(\w*)\n(.*?)^```", re.MULTILINE | re.DOTALL)


def _lines() -> list[tuple[str, str]]:
    found = []
    for page in PAGES:
        for language, body in FENCE.findall(page.read_text()):
            text = body.replace("\\\n", " ")
            for line in text.splitlines():
                if language == "ini":
                    if line.startswith(("ExecStart=", "ExecStartPre=")):
                        found.append((page.name, line.split("=", 1)[1]))
                    continue
                if language not in {"", "sh", "bash", "shell", "console"}:
                    continue
                command = re.split(r"\s+#", line, maxsplit=1)[0].strip().rstrip("&").strip()
                if command and not command.startswith("#"):
                    found.append((page.name, command))
    return found


LINES = _lines()


def _words(command: str) -> list[str]:
    words = shlex.split(command.replace("…", "x"))
    while words and re.fullmatch(r"[A-Z_]+=\S*", words[0]):  # VAR=value before the command
        words.pop(0)
    return words


def _options(words: list[str]) -> set[str]:
    """The long options a line uses, placeholders and alternatives aside: `[--kind builtin|llm]` → --kind."""
    return {m.group(1) for w in words if (m := re.match(r"\[?(--[a-z][a-z0-9-]*)", w))}


def _check_manage(words: list[str]) -> None:
    name = words[words.index("manage.py") + 1]
    assert name in get_commands(), f"manage.py has no command {name!r}"
    parser = load_command_class(get_commands()[name], name).create_parser("manage.py", name)
    taken = {option for action in parser._actions for option in action.option_strings}
    assert _options(words) <= taken, f"manage.py {name} takes no {sorted(_options(words) - taken)}"


def _check_make(words: list[str]) -> None:
    targets = [w for w in words[1:] if not w.startswith("-")]
    done = subprocess.run(["make", "-n", *targets], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr


def _check_program(words: list[str]) -> None:
    program = BIN / Path(words[0]).name
    assert program.exists(), f"{words[0]} is not installed by make install"
    # The line's own options, without its placeholders' values; Celery refuses an option it does not take.
    args = [w for w in words[1:] if not re.fullmatch(r"[A-Z.]+", w)]
    done = subprocess.run([str(program), *args, "--help"], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, f"{' '.join(words)}: {done.stderr[-2000:]}"


def _check(command: str) -> str:
    words = _words(command)
    program = Path(words[0]).name
    if program in NOT_OURS:
        return "not ours"
    if "manage.py" in words:
        _check_manage(words)
    elif program == "make":
        _check_make(words)
    elif program in {"celery", "gunicorn", "mkdocs", "concord"}:
        _check_program(words)
    else:
        raise AssertionError(f"no way to check {command!r}: teach this test, or add it to NOT_OURS")
    return "checked"


def test_the_pages_give_commands_to_check():
    checked = [command for _, command in LINES if _check_kind(command) != "not ours"]
    assert len(checked) >= 25, checked  # the code blocks were found: the two commands, make worker, manage.py …
    assert any(c.startswith("make run") for c in checked) and any("celery" in c for c in checked)


def _check_kind(command: str) -> str:
    return "not ours" if Path(_words(command)[0]).name in NOT_OURS else "ours"


@pytest.mark.django_db
@pytest.mark.parametrize("page,command", LINES, ids=[f"{p}:{c[:60]}" for p, c in LINES])
def test_every_command_line_runs(page, command):
    _check(command)


def test_a_renamed_option_fails_the_check():
    with pytest.raises(AssertionError, match="No such option"):
        _check_program(["celery", "-A", "config", "worker", "--quiet"])  # a global option, after the subcommand
    with pytest.raises(AssertionError, match="takes no"):
        _check_manage(["manage.py", "agreement", "STUDY", "--levels", "theme"])
    with pytest.raises(AssertionError):
        _check_make(["make", "serve"])
