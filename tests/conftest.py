"""The cast: named users with distinct rights, and a study in its independent round."""
from __future__ import annotations

import uuid

import pytest
from django.conf import settings
from django.test import Client, override_settings
from django.utils import translation

from config.celery import app as celery_app
from tests import factories


def pytest_collection_modifyitems(items):
    # Tests on a real worker share Redis's queues with each other: they are CI's, run one at a time.
    for item in items:
        if item.get_closest_marker("integration"):
            item.add_marker(pytest.mark.slow)


@pytest.fixture(scope="session", autouse=True)
def _cache_of_this_process(tmp_path_factory):
    # The default cache is a folder every process of an installation shares; test processes (pytest-xdist's
    # workers) each have a database of their own, so each gets a folder of its own too, or one process's
    # "under way" for round 1 would hold up another's. With Redis (CI) the cache stays Redis.
    if settings.REDIS_URL:
        yield
        return
    location = str(tmp_path_factory.mktemp("cache"))
    with override_settings(CACHES={"default": settings.CACHES["default"] | {"LOCATION": location}}):
        yield


@pytest.fixture(scope="session")
def _witness_folder(tmp_path_factory):
    return tmp_path_factory.mktemp("audit-witness")


@pytest.fixture(autouse=True)
def _audit_witness_of_this_test(_witness_folder):
    # The audit witness is the log's record of its own ids and hashes; each test's database starts empty, so each
    # test gets a witness file of its own, as a new installation would.
    previous = settings.AUDIT_WITNESS_FILE
    settings.AUDIT_WITNESS_FILE = str(_witness_folder / f"{uuid.uuid4().hex}.jsonl")
    yield
    settings.AUDIT_WITNESS_FILE = previous


@pytest.fixture(autouse=True)
def _eager_celery(request):
    # Most tests run tasks in-process; tests marked `integration` talk to a real worker instead.
    if request.node.get_closest_marker("integration"):
        yield
        return
    previous = celery_app.conf.task_always_eager
    celery_app.conf.task_always_eager = True
    yield
    celery_app.conf.task_always_eager = previous


@pytest.fixture(autouse=True)
def _default_language():
    # A page served in Chinese leaves Chinese active in the thread (a server activates each request's own);
    # the next test starts in the default language, whatever ran before it.
    yield
    translation.deactivate()


@pytest.fixture(autouse=True)
def _fast_passwords(settings):
    # The default hasher is slow on purpose; tests create many users.
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


@pytest.fixture(autouse=True)
def _fresh_throttle_counts(monkeypatch):
    # API throttles count in the cache; each test starts with none spent (without flushing a Redis that the
    # Celery worker shares).
    from django.core.cache.backends.locmem import LocMemCache
    from rest_framework.throttling import SimpleRateThrottle

    monkeypatch.setattr(SimpleRateThrottle, "cache", LocMemCache(f"throttle-{uuid.uuid4()}", {}))


@pytest.fixture
def admin(db):
    return factories.make_user("admin", is_staff=True, is_superuser=True)


@pytest.fixture
def lead(db):
    return factories.make_user("lead")


@pytest.fixture
def annotator_a(db):
    return factories.make_user("alice")


@pytest.fixture
def annotator_b(db):
    return factories.make_user("bob")


@pytest.fixture
def annotator_c(db):
    return factories.make_user("charlie")


@pytest.fixture
def outsider(db):
    return factories.make_user("mallory")


@pytest.fixture
def study(lead, annotator_a, annotator_b, annotator_c):
    """Three reports, the lead and three annotators, round 1 (independent) open."""
    return factories.make_study(lead, [annotator_a, annotator_b, annotator_c], name="Demo study")


@pytest.fixture
def client_as():
    def make(user) -> Client:
        client = Client()
        client.force_login(user)
        return client

    return make
