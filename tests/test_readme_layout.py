"""The manual's Layout section (docs/development.md) is the tree: every folder and file kept at the top is in its
table, every row names something that exists, and each app's row names every module of the app."""
from __future__ import annotations

import re
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# Parts of every Django app that need no word of their own.
UNREMARKABLE = {"__init__", "apps", "migrations", "templates", "static"}


def _section(heading: str) -> str:
    text = (ROOT / "docs" / "development.md").read_text()
    return text.split(f"\n{heading}\n", 1)[1].split("\n#", 1)[0]


def _kinds() -> set[str]:
    """The kinds of module the Layers section names once for every app (models, services, views, …)."""
    first = _section("### Layers").strip().split("\n\n", 1)[0]
    return set(re.findall(r"`([a-z_]+)`", first))


def _layout() -> dict[str, str]:
    section = _section("## Layout")
    rows = {}
    for line in section.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")] if line.startswith("| `") else []
        if len(cells) >= 2:
            for name in re.findall(r"`([^`]+)`", cells[0]):
                rows[name.rstrip("/")] = cells[1]
    return rows


def _tracked_top() -> set[str]:
    names = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True).stdout
    return {path.split("/", 1)[0] for path in names.splitlines()}


def test_every_top_level_entry_is_in_the_layout_and_every_row_exists():
    rows = _layout()
    assert set(rows) - {path for path in rows if (ROOT / path).exists()} == set(), "rows naming nothing"
    missing = {name for name in _tracked_top() if name not in rows}
    assert missing == set(), f"not in the manual's Layout: {sorted(missing)}"


def test_each_apps_row_names_every_module_of_the_app():
    rows = _layout()
    apps = [name for name in rows if (ROOT / name / "apps.py").exists() or (ROOT / name / "__init__.py").exists()
            and name not in ("tests", "bench")]
    assert "stats" in apps and "annotation" in apps
    kinds = _kinds()
    assert {"models", "services", "selectors", "views", "api", "urls", "management"} <= kinds
    unnamed = {}
    for app in apps:
        modules = {p.stem for p in (ROOT / app).iterdir()
                   if (p.suffix == ".py" or (p / "__init__.py").exists()) and p.stem not in UNREMARKABLE}
        said = set(re.findall(r"`([a-z_][a-z_0-9]*)(?:\.py|/)?`", rows[app])) | kinds
        if modules - said:
            unnamed[app] = sorted(modules - said)
    assert unnamed == {}, f"modules the manual's Layout does not name: {unnamed}"


def test_the_layers_section_names_the_apps_in_the_order_the_linter_checks():
    import tomllib

    contracts = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["importlinter"]["contracts"]
    # A floor of rooms that know nothing of each other is written "a | b": the manual names them in that order.
    layers = [room.strip() for floor in next(c["layers"] for c in contracts if c["type"] == "layers")
              for room in floor.split("|")]
    said = _section("### Layers").split("in this order, each importing only from those below it:", 1)[1]
    order = re.findall(r"`([a-z_]+)`", said.split("above them all", 1)[0])
    assert order[:len(layers)] == layers


def test_every_model_the_glossary_names_exists_and_every_word_it_defines_is_one_thing():
    from django.apps import apps

    glossary = _section("## Glossary")
    named = re.findall(r"`([a-z_]+)\.([A-Z][A-Za-z]+)`", glossary)
    assert len(named) >= 7
    for app, model in named:
        apps.get_model(app, model)  # LookupError names what the glossary got wrong
    words = re.findall(r"\*\*([a-z ]+)\*\*", glossary)
    assert len(words) == len(set(words)) and {"report", "codebook", "label", "final label", "round"} <= set(words)
