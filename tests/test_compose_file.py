"""docker-compose.yml is a valid Compose file. `docker compose config` is not installable
on the CI machine, so the file is parsed by compose-spec (bindings of the Rust compose_spec crate, a
validating parser of the Compose Specification) after PyYAML has resolved its merge keys, and the references
between services and volumes are checked here."""
from __future__ import annotations

import json
from pathlib import Path

import yaml
from compose_spec import PyCompose
from django.conf import settings

from concord import jobs

COMPOSE = Path(__file__).resolve().parent.parent / "docker-compose.yml"


def _load() -> dict:
    return yaml.safe_load(COMPOSE.read_text())


def test_the_compose_file_follows_the_specification():
    compose = PyCompose.from_json(json.dumps(_load()))
    assert {"postgres", "postgres-replica", "pgbouncer", "redis", "web", "web2", "balancer", "worker-ingest",
            "worker-summaries", "worker-statistics"} <= set(compose.service_names())


def test_every_reference_names_something_declared():
    data = _load()
    services, volumes = data["services"], set(data.get("volumes") or {})
    for name, service in services.items():
        for needed in service.get("depends_on") or {}:
            assert needed in services, f"{name} depends on {needed}, which is not a service"
        for mount in service.get("volumes") or []:
            source = mount.split(":", 1)[0]
            assert source.startswith((".", "/")) or source in volumes, f"{name} mounts undeclared {source}"


def test_every_queue_has_a_worker_and_every_worker_a_queue():
    routed = set(jobs.QUEUES) | {"celery"}
    served = set()
    for service in _load()["services"].values():
        command = service.get("command") or ""
        if "celery" in command and " worker" in command:
            served |= set(command.split("--queues ", 1)[1].split()[0].split(","))
    assert routed == served == set(settings.CELERY_QUEUES_ALL.split(","))


def test_the_app_reads_stale_data_from_the_replica_and_is_reached_through_the_balancer():
    data = _load()
    services = data["services"]
    assert services["web"]["environment"]["DATABASE_REPLICA_URL"].startswith("postgres://concord:concord@postgres-replica")
    published = {name for name, service in services.items() if service.get("ports")}
    assert published == {"balancer"}, "only the balancer is reached from outside"
    balancer = data["configs"]["haproxy"]["content"]
    assert "server web web:8000 check" in balancer and "server web2 web2:8000 check" in balancer


def test_every_process_of_the_app_is_started_again_and_checked_by_what_it_needs():
    data = _load()
    services = data["services"]
    for name in ("web", "web2", "worker-ingest", "worker-summaries", "worker-statistics", "beat", "balancer"):
        assert services[name]["restart"] == "unless-stopped", name
    for name in ("web", "web2"):
        assert "/readyz?role=web" in " ".join(services[name]["healthcheck"]["test"])
    for name in ("worker-ingest", "worker-summaries", "worker-statistics"):
        assert "inspect ping" in " ".join(services[name]["healthcheck"]["test"])
    assert "uri /readyz?role=web " in data["configs"]["haproxy"]["content"]
