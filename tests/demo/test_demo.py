"""The demo users' passwords are shown once when made; `demo_passwords` gives them new ones."""
from __future__ import annotations

import io

import pytest
from django.contrib.auth import get_user_model
from django.core.management import CommandError, call_command
from django.urls import reverse

from annotation.models import Study, TiedReport
from annotation.selectors.votes import needing_decision
from demo.services import SIMULATED_STUDY, load_demo
from findings.tables import figure3

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _passwords_file(settings, tmp_path):
    settings.DEMO_PASSWORDS_FILE = tmp_path / "demo-passwords.txt"


def test_demo_passwords_gives_the_demo_users_new_ones(settings):
    with pytest.raises(CommandError, match="no demo users"):
        call_command("demo_passwords")
    get_user_model().objects.create_user("ann1", password="old-password-1")
    out = io.StringIO()
    call_command("demo_passwords", stdout=out)
    new = out.getvalue().split("ann1", 1)[1].split()[0]
    user = get_user_model().objects.get(username="ann1")
    assert user.check_password(new) and not user.check_password("old-password-1")
    # Kept in a file its owner alone reads, framed as printed.
    kept = settings.DEMO_PASSWORDS_FILE
    assert new in kept.read_text() and kept.stat().st_mode & 0o777 == 0o600


def test_the_demo_shows_every_step_of_the_method_on_first_run(client_as):
    """The demo had no ties, so review and adjudication were empty."""
    passwords = load_demo()
    assert set(passwords) == {"lead", "ann1", "ann2", "ann3"} and load_demo() == {}  # a second run adds nothing
    study = Study.objects.get(name=SIMULATED_STUDY)
    assert study.phase == Study.Phase.ADJUDICATION and "Simulated labels, not a finding" in study.description
    waiting = needing_decision(study)
    assert len(waiting) >= 5 and TiedReport.objects.filter(round__study=study).count() >= len(waiting)
    assert sum(block.total for block in figure3(study)) > 90  # provisional figures from what the votes settle on
    lead = get_user_model().objects.get(username="lead")
    client = client_as(lead)
    for name in ("annotation:adjudication_list", "annotation:review_list", "findings:statistics",
                 "annotation:study_detail"):
        response = client.get(reverse(name, args=[study.pk]))
        assert response.status_code == 200, name
    assert "Simulated labels, not a finding" in client.get(
        reverse("annotation:study_detail", args=[study.pk])).content.decode()


@pytest.mark.parametrize("command", ["export_study", "stats"])
def test_commands_take_the_study_by_name_or_by_id(study, tmp_path, command):
    args = [str(tmp_path / "study.jsonl.gz")] if command == "export_study" else []
    for name in (study.name, str(study.pk)):
        call_command(command, name, *args, stdout=io.StringIO())
    with pytest.raises(CommandError, match="no study named"):
        call_command(command, str(10**30), *args, stdout=io.StringIO())
