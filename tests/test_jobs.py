"""Background work has one home (concord.jobs): every task is made there from the function that does the work,
sits in a module a worker imports at start, goes to its queue, and no module imports a module that imports it
back, but for a package and its own modules."""
from __future__ import annotations

import importlib
import pkgutil
import sys
import tomllib
from pathlib import Path

import grimp
from django.conf import settings

from concord import jobs
from config.celery import app

ROOT = Path(__file__).resolve().parent.parent
APPS = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["importlinter"]["root_packages"]


def _import_everything() -> None:
    for name in APPS:
        package = importlib.import_module(name)
        for found in pkgutil.walk_packages(package.__path__, f"{name}."):
            if ".migrations" not in found.name and not found.name.endswith(("settings", "wsgi", "asgi")):
                importlib.import_module(found.name)


def test_every_task_is_made_in_a_module_the_worker_imports_and_goes_to_its_queue():
    _import_everything()
    made = dict(jobs._queue_of)
    assert {name.rsplit(".", 1)[0] for name in made} == set(settings.CELERY_IMPORTS)
    app.loader.import_default_modules()
    ours = {name for name in app.tasks if not name.startswith("celery.")}
    assert ours == set(made), "a Celery task not made by concord.jobs.task"
    assert made == {
        "ingest.services.work.ingest": "ingest", "ingest.services.summaries.summarise": "summaries",
        "agreement.services.compute": "statistics", "agreement.services.compute_plan": "statistics",
        "machines.services.runs.rate": "statistics", "machines.services.measurements.measure_by_id": "statistics",
        "machines.services.stored_jury.keep": "statistics",
        "findings.stored_shares.keep_by_id": "statistics", "accounts.digests.send_digests": "statistics",
        "reminders.idle.tell_idle": "statistics",
        "webhooks.services.deliver": "statistics", "webhooks.services.send_due": "statistics",
        "codebook.services.proposals.lapse_overdue": "statistics",
    }
    for name, queue in made.items():
        assert jobs.route(name, (), {}, {}) == {"queue": queue}
    assert set(made.values()) == set(jobs.QUEUES)


def _cycles(graph) -> list[list[str]]:
    """Strongly connected groups of modules (Tarjan), of more than one module."""
    sys.setrecursionlimit(max(10_000, sys.getrecursionlimit()))
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    groups: list[list[str]] = []

    def visit(module: str) -> None:
        index[module] = low[module] = len(index)
        stack.append(module)
        for imported in graph.find_modules_directly_imported_by(module):
            if imported not in index:
                visit(imported)
                low[module] = min(low[module], low[imported])
            elif imported in stack:
                low[module] = min(low[module], index[imported])
        if low[module] == index[module]:
            group = []
            while True:
                member = stack.pop()
                group.append(member)
                if member == module:
                    break
            if len(group) > 1:
                groups.append(sorted(group))

    for module in sorted(graph.modules):
        if module not in index:
            visit(module)
    return groups


def test_no_import_circle_but_a_package_and_its_own_modules():
    graph = grimp.build_graph(*APPS, include_external_packages=False)
    circles = [group for group in _cycles(graph)
               if not all(member.startswith(group[0] + ".") for member in group[1:])]
    assert circles == []
