"""A property-based fuzzer on the API's own OpenAPI schema: Schemathesis generates requests
for every operation, valid and invalid (wrong types, huge integers, long and odd strings, missing fields), and
no answer may be a server error. In CI it runs on PostgreSQL, where a value too long or too large for its
column fails in the database rather than passing as it does on SQLite.

Bounded: FUZZ_EXAMPLES examples per operation and role (CONCORD_FUZZ_EXAMPLES to change it), a few minutes
in all.
"""
from __future__ import annotations

import base64
import os

import pytest
import schemathesis
from django.core import signals
from django.core.wsgi import get_wsgi_application
from django.db import close_old_connections
from drf_spectacular.generators import SchemaGenerator
from hypothesis import HealthCheck, Phase, given, settings
from schemathesis.generation import GenerationMode

from tests.factories import make_issue, make_study, make_user

pytestmark = pytest.mark.django_db(transaction=False)

FUZZ_EXAMPLES = int(os.environ.get("CONCORD_FUZZ_EXAMPLES", "30"))
PASSWORD = "fuzz-password-7Qx"


def _schema():
    loaded = schemathesis.openapi.from_dict(SchemaGenerator().get_schema(request=None, public=True))
    loaded.app = get_wsgi_application()
    return loaded


SCHEMA = _schema()
OPERATIONS = {op.label: op for op in (result.ok() for result in SCHEMA.get_all_operations())}


@pytest.fixture
def keep_connection():
    """As Django's test client does: a request must not close the connection holding the test's transaction."""
    signals.request_started.disconnect(close_old_connections)
    signals.request_finished.disconnect(close_old_connections)
    yield
    signals.request_started.connect(close_old_connections)
    signals.request_finished.connect(close_old_connections)


@pytest.fixture
def people(db, keep_connection):
    """A study with a lead and two annotators, reports, and labels to read; ids 1.. exist, so generated ids hit."""
    lead, *annotators = [make_user(name) for name in ("fuzz-lead", "fuzz-ann1", "fuzz-ann2")]
    for user in (lead, *annotators):
        user.set_password(PASSWORD)
        user.save()
    make_study(lead, annotators, issues=[make_issue() for _ in range(5)], name="Fuzzed")
    return {"lead": lead, "annotator": annotators[0]}



def _basic(user) -> dict[str, str]:
    token = base64.b64encode(f"{user.username}:{PASSWORD}".encode()).decode()
    return {"Authorization": f"Basic {token}"}


FUZZ = settings(max_examples=FUZZ_EXAMPLES, deadline=None, derandomize=True, phases=[Phase.explicit, Phase.generate],
                suppress_health_check=list(HealthCheck), database=None)


@pytest.mark.parametrize("mode", list(GenerationMode), ids=lambda m: m.value)
@pytest.mark.parametrize("role", ["annotator", "lead"])
@pytest.mark.parametrize("label", sorted(OPERATIONS))
def test_no_request_is_a_server_error(label, role, mode, people, settings):
    """Positive cases follow the schema; negative ones break it (wrong types, values out of range, missing or
    extra fields). Either way the answer is never a 5xx."""
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    headers = _basic(people[role])
    seen: set[int] = set()

    @FUZZ
    @given(case=OPERATIONS[label].as_strategy(generation_mode=mode))
    def fuzz(case):
        response = case.call(headers=headers)
        seen.add(response.status_code)
        assert response.status_code < 500, (
            f"{case.method} {case.formatted_path} answered {response.status_code}\n"
            f"query={case.query!r}\nbody={case.body!r}\n{response.text[:2000]}"
        )

    fuzz()
    # The fuzzer reached the views: its requests were authenticated, not all turned away at the door.
    assert 401 not in seen, seen


def test_a_body_nested_50000_deep_is_a_400_naming_the_fault(client_as, study, annotator_a):
    """Json gives up with a RecursionError, which reached the client as a 500."""
    from django.urls import reverse

    response = client_as(annotator_a).post(reverse("api:label_list", args=[study.pk]),
                                           "[" * 50_000 + "]" * 50_000, content_type="application/json")
    assert response.status_code == 400 and "nested too deeply" in response.json()["detail"]


def test_ids_past_64_bits_are_a_400_naming_the_field(client_as, study, annotator_a):
    from django.urls import reverse

    response = client_as(annotator_a).post(reverse("api:label_list", args=[study.pk]),
                                           {"issue": 2**70, "type": 2**70}, content_type="application/json")
    assert response.status_code == 400 and set(response.json()) == {"issue", "type"}
