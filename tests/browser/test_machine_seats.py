"""A machine takes a seat, and a jury takes reports, in a real browser: the lead hands h2's seat to a machine from
the rater's page, sees the agreement both ways, and withdraws the decision; then delegates to a jury and ends it.
What each page said is what was stored."""
from __future__ import annotations

import pytest

from annotation.models import Assignment, Seat
from machines.models import MachineRater
from machines.services.seats import offers
from tests.factories import finished_run
from tests.machines.test_seats import _study

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def _login(page, live_server, path: str) -> None:
    page.goto(f"{live_server.url}/accounts/login/?next={path}")
    page.fill("input[name=username]", "lead")
    page.fill("input[name=password]", "pw-lead")
    page.press("input[name=password]", "Enter")


def test_the_lead_hands_a_seat_to_a_machine_and_gives_it_back(live_server, page):
    study, lead, people, decision, truth = _study()
    offered = {o.username: o.reports for o in offers(decision)}["h2"]
    _login(page, live_server, f"/studies/{study.pk}/machines/{decision.rater_id}/")
    page.get_by_role("button", name=f"Hand h2's seat to oracle: {offered} reports leave their queue").click()
    page.get_by_text(f"oracle stands in h2's seat: {offered} reports left their queue").wait_for()
    seat = Seat.objects.get()
    assert seat.annotator == people[2] and seat.labels.count() == offered and seat.standing
    assert f"on {offered} reports" in page.inner_text("[data-testid=seat]")
    page.goto(f"{live_server.url}/studies/{study.pk}/agreement/")
    page.get_by_text("With the machines in people's seats").wait_for(timeout=30_000)
    assert f"oracle stands in h2's seat on {offered} reports" in page.inner_text("[data-testid=seats]")
    page.goto(f"{live_server.url}/studies/{study.pk}/machines/{decision.rater_id}/")
    page.fill(f"#withdraw-{decision.pk}", "the sentinels are too few to trust")
    page.get_by_role("button", name="Withdraw").click()
    page.get_by_text(f"Decision withdrawn. {offered} reports returned to h2's queue.").wait_for()
    seat.refresh_from_db()
    assert not seat.standing and Assignment.objects.filter(queue__annotator=people[2], done=False).count() == 40


def test_the_lead_delegates_to_a_jury_and_ends_it(live_server, page):
    study, lead, people, decision, truth = _study()
    for n in (1, 2):
        rater = MachineRater.objects.create(study=study, name=f"oracle-{n}", kind="builtin")
        finished_run(rater, truth, 0.9)
    # The decision's rater gives no confidence: it is sure of nothing, so only the two others and a third sure one
    # make a jury that takes reports.
    third = MachineRater.objects.create(study=study, name="oracle-3", kind="builtin")
    finished_run(third, truth, 0.95)
    _login(page, live_server, f"/studies/{study.pk}/machines/")
    page.get_by_test_id("jury-link").click()
    for name in ("oracle-1", "oracle-2", "oracle-3"):
        page.get_by_label(name, exact=True).check()
    page.get_by_role("button", name="Show what it would do").click()
    assert "alpha 1.000: fit" in page.inner_text("[data-testid=jury-plan]")
    assert "as the threshold promises." in page.inner_text("[data-testid=jury-promise]")
    button = page.get_by_role("button", name="Delegate 60 reports to the jury: 100 leave people's queues")
    button.click()
    page.get_by_text("The jury stands in the seats of 2 people on the reports it took.").wait_for()
    assert Seat.objects.filter(machine="jury: oracle-1, oracle-2, oracle-3").count() == 2
    assert "jury: oracle-1, oracle-2, oracle-3 stands in h2's seat on 40 reports" in \
        page.inner_text("[data-testid=jury-seats]")
    page.get_by_role("button", name="End the delegation: give every seat back").click()
    page.get_by_text("Delegation ended: 100 reports returned to people's queues.").wait_for()
    assert not Seat.objects.filter(given_back_at__isnull=True).exists()
