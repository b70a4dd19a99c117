"""Every share of the study's tables three ways — people's labels, a machine's, prediction-powered — on the 974
vLLM reports with the study's labels and the built-in model's, with people's final labels kept on a seeded
fifth of the reports: the wiring is checked against the estimator itself, and the page, the CSV and refusals."""
from __future__ import annotations

import csv
import io
import random

import numpy as np
import pytest
from django.core.management import call_command
from django.urls import reverse

from annotation.models import FinalLabel, Membership, QueueWeight, Study
from annotation.planning import by_keys, order_key
from findings.estimates import default_rater, estimates
from machines.models import MachineRater
from machines.selectors import confidences, finals, latest_run, run_labels
from machines.services.queue_order import order_by_doubt
from stats import ppi
from tests.machines.conftest import vllm_study  # noqa: F401 (a fixture)

pytestmark = pytest.mark.django_db


@pytest.fixture
def rated(vllm_study):  # noqa: F811
    call_command("rate", "vllm", rater="tfidf-sgd", kind="builtin", stdout=io.StringIO())
    return vllm_study


def _keep_a_fifth(study: Study, order: str = Study.QueueOrder.RANDOM) -> None:
    """People labeled the first fifth of the queues in the study's order (any fifth under oldest first)."""
    Study.objects.filter(pk=study.pk).update(queue_order=order)
    study.refresh_from_db()
    ids = sorted(FinalLabel.objects.filter(study=study).values_list("issue_id", flat=True))
    if order == Study.QueueOrder.OLDEST:
        kept = set(random.Random(5).sample(ids, len(ids) // 5))
    else:
        weights = dict(QueueWeight.objects.filter(study=study).values_list("issue_id", "weight"))
        kept = set(by_keys(ids, study.seed, weights)[:len(ids) // 5])
    FinalLabel.objects.filter(study=study).exclude(issue_id__in=kept).delete()


def _row(found, key, group, code):
    section = next(s for s in found.sections if s.key == key)
    return next(r for r in section.rows if r.group == group and r.code == code)


def test_with_every_report_labeled_by_people_the_powered_share_is_theirs(rated):
    found = estimates(rated, default_rater(rated))
    assert found.reports == 974 and found.labeled == 974
    row = _row(found, "type", "all years", "C")
    assert row.three.powered.lam == 0 and row.three.powered.value == row.three.people.value
    assert row.three.people.value == pytest.approx(509 / 974)


def test_the_shares_are_the_estimators_own_on_the_studys_labels(rated):
    Study.objects.filter(pk=rated.pk).update(phase=Study.Phase.CLOSED)
    rated.refresh_from_db()
    _keep_a_fifth(rated)
    rater = MachineRater.objects.get(study=rated)
    found = estimates(rated, rater)
    assert found.reports == 974 and found.labeled == 974 // 5
    people, (machine, _) = finals(rated), run_labels(latest_run(rater))
    ids = sorted(machine)
    labeled = np.array([pk in people for pk in ids])
    y = np.array([people[pk][0] == "C" if pk in people else False for pk in ids], dtype=float)
    f = np.array([machine[pk][0] == "C" for pk in ids], dtype=float)
    expected = ppi.ppi(y[labeled], f[labeled], f[~labeled])
    row = _row(found, "type", "all years", "C").three
    assert row.powered.value == pytest.approx(expected.value, abs=1e-12)
    assert (row.powered.low, row.powered.high) == pytest.approx((expected.low, expected.high), abs=1e-12)
    assert row.powered.n == 194 and row.powered.unlabeled == 780
    # A theme's share of its type: a ratio, with its whole labeled by people where they labeled.
    themes = next(s for s in found.sections if s.key == "theme").rows
    bugs = [r for r in themes if r.code.startswith("C.") and r.three.people]
    assert bugs and all(r.three.of == sum(1 for pk in people if people[pk][0] == "C") for r in bugs)
    assert sum(r.three.people.value for r in bugs) == pytest.approx(1.0)
    for section in found.sections:
        for r in section.rows:
            if r.three.powered is not None and r.three.people is not None:
                assert r.three.powered.se <= r.three.people.se + 1e-12, (section.key, r.group, r.code)
    # Which fifth people labeled follows the study's seeded order of the reports' ids, which depend on what ran
    # before on the same database: over seeds 1 to 8, 5 to 10 intervals were narrower than people's, but as few as
    # one by 5 % or more, so the test asks for narrower, not for how much.
    assert any(r.three.powered and r.three.powered.width < r.three.people.width - 1e-12
               for s in found.sections for r in s.rows if r.three.people and r.three.enough), \
        "the machine narrows no interval"


def test_the_page_and_the_csv(rated, client_as, lead):
    Study.objects.filter(pk=rated.pk).update(phase=Study.Phase.CLOSED)
    Membership.objects.create(study=rated, user=lead, role=Membership.Role.LEAD)
    _keep_a_fifth(rated)
    client = client_as(lead)
    page = client.get(reverse("findings:shares", args=[rated.pk]))
    assert page.status_code == 200
    html = page.content.decode()
    assert 'data-testid="shares-type"' in html and "prediction-powered" in html.lower()
    assert "people labeled 194 of them" in html
    rater = MachineRater.objects.get(study=rated)
    table = client.get(reverse("findings:shares_csv", args=[rated.pk]) + f"?rater={rater.pk}")
    rows = list(csv.DictReader(io.StringIO(b"".join(table.streaming_content).decode("utf-8-sig"))))
    c = next(r for r in rows if r["table"] == "type" and r["of"] == "all years" and r["code"] == "C")
    assert float(c["powered_low"]) < float(c["powered_share"]) < float(c["powered_high"])
    assert c["people_n"] == "194" and c["powered_n"] == "974" and c["machine_n"] == "974"
    assert c["rater"] == "tfidf-sgd"


@pytest.mark.parametrize("given", ["abc", "99999999", "1" * 40, "\x00"])
def test_a_rater_that_is_not_the_studys_is_refused_by_name(rated, client_as, lead, given):
    Membership.objects.create(study=rated, user=lead, role=Membership.Role.LEAD)
    response = client_as(lead).get(reverse("findings:shares", args=[rated.pk]), {"rater": given})
    assert response.status_code == 400 and b"rater:" in response.content


def test_a_study_without_machines_says_how_to_get_them(study, client_as, lead, annotator_a):
    """Each reader is told what they can do, and every link they are shown opens for them."""
    import lxml.html

    from annotation.services.phases import advance

    advance(study, lead, confirm_missing=True)  # the review: the annotators may see the shares
    study.refresh_from_db()
    for person, links_raters in ((lead, True), (annotator_a, False)):
        client = client_as(person)
        response = client.get(reverse("findings:shares", args=[study.pk]))
        assert response.status_code == 200 and b'data-testid="no-machine"' in response.content
        page = lxml.html.fromstring(response.content)
        hrefs = [a.get("href") for a in page.iter("a") if a.get("href", "").startswith("/")]
        assert (reverse("machines:index", args=[study.pk]) in hrefs) is links_raters
        for href in hrefs:
            if not href.startswith(("/accounts/logout", "/static/")):
                assert client.get(href).status_code in (200, 302), (person.username, href)


def test_the_replication_package_recomputes_every_share(rated, tmp_path, lead):
    """The package holds each rater's shares and the rows they come from; its script, unable to import Concord,
    recomputes every share three ways and fails on one changed."""
    import json
    import subprocess
    import sys
    import zipfile

    Study.objects.filter(pk=rated.pk).update(phase=Study.Phase.CLOSED)
    Membership.objects.create(study=rated, user=lead, role=Membership.Role.LEAD)
    _keep_a_fifth(rated)
    path = tmp_path / "package.zip"
    call_command("replication_package", rated.name, str(path), stdout=io.StringIO())
    with zipfile.ZipFile(path) as archive:
        archive.extractall(tmp_path / "package")
    folder = tmp_path / "package"
    shares = json.loads((folder / "estimates" / "shares.json").read_text())
    (rater,) = shares["raters"]
    assert rater["rater"] == "tfidf-sgd" and rater["labeled"] == 194 and rater["reports"] == 974
    rows = list(csv.DictReader(open(folder / "estimates" / "reports.csv", newline="")))
    assert len(rows) == 974 and sum(1 for r in rows if r["people_type"]) == 194
    assert all("#" in r["report"] and r["url"].startswith("https://") for r in rows)

    def run():
        return subprocess.run([sys.executable, "-I", "recompute.py"], cwd=folder, capture_output=True, text=True,
                              timeout=300)

    result = run()
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr
    assert "tfidf-sgd: type C of all years, powered, λ" in result.stdout and "DIFFERS" not in result.stdout
    powered = next(s for s in rater["shares"] if s["table"] == "type" and s["code"] == "C" and not s["whole"])
    powered["powered"]["value"] += 1e-6
    (folder / "estimates" / "shares.json").write_text(json.dumps(shares))
    result = run()
    assert result.returncode == 1 and "DIFFERS  tfidf-sgd: type C of all years, powered, share" in result.stdout


def test_under_oldest_first_the_powered_shares_wait_for_every_label(rated, client_as, lead):
    """The oldest reports are no random sample: no powered share until people labeled every report."""
    Study.objects.filter(pk=rated.pk).update(phase=Study.Phase.CLOSED)
    Membership.objects.create(study=rated, user=lead, role=Membership.Role.LEAD)
    _keep_a_fifth(rated, Study.QueueOrder.OLDEST)
    found = estimates(rated, default_rater(rated))
    assert not found.valid and found.sample == 194
    page = client_as(lead).get(reverse("findings:shares", args=[rated.pk])).content.decode()
    assert 'data-testid="not-a-sample"' in page and "not given" in page
    rows = list(csv.DictReader(io.StringIO(b"".join(client_as(lead).get(
        reverse("findings:shares_csv", args=[rated.pk])).streaming_content).decode("utf-8-sig"))))
    assert all(r["powered_share"] == "" for r in rows) and any(r["people_share"] for r in rows)


def test_labels_beyond_the_first_missing_one_are_set_aside(rated):
    """Someone labeled faster than the rest: reports beyond the first in the order still without people's label
    came early by chance of pace, not of the design, and are not used."""
    Study.objects.filter(pk=rated.pk).update(phase=Study.Phase.CLOSED)
    _keep_a_fifth(rated)
    order = by_keys(sorted(rated.issues.values_list("pk", flat=True)), rated.seed)
    FinalLabel.objects.filter(study=rated, issue_id=order[10]).delete()  # a hole early in the order
    found = estimates(rated, default_rater(rated))
    assert found.sample == 10 and found.set_aside == 974 // 5 - 11 and found.valid


def test_ordered_by_the_machines_doubt_the_shares_weigh_by_each_reports_chance(rated, client_as, lead, tmp_path):
    """The lead orders the queues by the built-in model's doubt during the pilot; people label the first fifth
    in that order; the shares are the design-weighed estimator's on those labels, the page says so, and the
    replication package recomputes them."""
    import json
    import subprocess
    import sys
    import zipfile

    Study.objects.filter(pk=rated.pk).update(phase=Study.Phase.PILOT)
    Membership.objects.create(study=rated, user=lead, role=Membership.Role.LEAD)
    rater = MachineRater.objects.get(study=rated)
    run = latest_run(rater)
    assert order_by_doubt(rater, expected_run=run.pk, by=lead) == 974
    weights = dict(QueueWeight.objects.filter(study=rated).values_list("issue_id", "weight"))
    assert abs(np.mean(list(weights.values())) - 1) < 1e-9 and min(weights.values()) >= 0.5
    sure = confidences(run)
    doubtful, confident = min(sure, key=sure.get), max(sure, key=sure.get)
    assert weights[doubtful] > weights[confident]
    Study.objects.filter(pk=rated.pk).update(phase=Study.Phase.CLOSED)
    rated.refresh_from_db()
    _keep_a_fifth(rated, Study.QueueOrder.CONFIDENCE)
    found = estimates(rated, rater)
    assert found.design == "confidence" and found.valid and found.sample == 194 and found.chance is not None
    people, (machine, _) = finals(rated), run_labels(run)
    ids = sorted(machine)
    keys = np.array([order_key(rated.seed, pk) / weights[pk] for pk in ids])
    labeled = np.array([pk in people for pk in ids])
    bound = keys[~labeled].min()
    chance = np.minimum(1, bound * np.array([weights[pk] for pk in ids]))
    y = np.array([people[pk][0] == "C" if pk in people else False for pk in ids], dtype=float)
    f = np.array([machine[pk][0] == "C" for pk in ids], dtype=float)
    ones = np.ones(len(ids))
    expected = ppi.three_ways_by_design(y, ones, f, ones, labeled, chance)
    row = _row(found, "type", "all years", "C").three
    assert row.powered.value == pytest.approx(expected.powered.value, abs=1e-12)
    assert row.people.value == pytest.approx(expected.people.value, abs=1e-12)
    assert row.powered.se <= row.people.se
    # The page says the order; the package recomputes every share under it.
    page = client_as(lead).get(reverse("findings:shares", args=[rated.pk])).content.decode()
    assert "least sure of" in page and "tfidf-sgd, run 1" in page
    path = tmp_path / "package.zip"
    call_command("replication_package", rated.name, str(path), stdout=io.StringIO())
    with zipfile.ZipFile(path) as archive:
        archive.extractall(tmp_path / "package")
    shares = json.loads((tmp_path / "package" / "estimates" / "shares.json").read_text())
    assert shares["raters"][0]["design"] == "confidence"
    result = subprocess.run([sys.executable, "-I", "recompute.py"], cwd=tmp_path / "package", capture_output=True,
                            text=True, timeout=300)
    assert result.returncode == 0 and "DIFFERS" not in result.stdout, result.stdout[-3000:] + result.stderr


def test_the_queues_follow_the_machines_doubt(rated, lead):
    """Dealt by key over weight: the reports the machine doubts most come early far more often."""
    from annotation.services.phases import _start_independent

    Study.objects.filter(pk=rated.pk).update(phase=Study.Phase.PILOT)
    Membership.objects.create(study=rated, user=lead, role=Membership.Role.LEAD)
    rater = MachineRater.objects.get(study=rated)
    run = latest_run(rater)
    order_by_doubt(rater, expected_run=run.pk, by=lead)
    rated.refresh_from_db()
    round = _start_independent(rated)
    from annotation.services.queues import study_order

    order = study_order(round)
    sure = confidences(run)
    first, last = order[:200], order[-200:]
    assert np.mean([sure[pk] for pk in first]) < np.mean([sure[pk] for pk in last])
    queue = round.queues.get(annotator=lead)
    dealt = list(queue.assignments.order_by("position").values_list("issue_id", flat=True))
    assert dealt == order


@pytest.mark.django_db(transaction=True)  # the restore flushes the database first
def test_a_backup_carries_the_queue_order_its_weights_and_the_models_confidence(rated, lead, tmp_path):
    Study.objects.filter(pk=rated.pk).update(phase=Study.Phase.PILOT)
    Membership.objects.create(study=rated, user=lead, role=Membership.Role.LEAD)
    rater = MachineRater.objects.get(study=rated)
    order_by_doubt(rater, expected_run=latest_run(rater).pk, by=lead)
    weights = sorted(QueueWeight.objects.filter(study=rated).values_list("issue__url", "weight"))
    sure = sorted(confidences(latest_run(rater)).values())
    path = tmp_path / "study.gz"
    call_command("export_study", rated.name, str(path), stdout=io.StringIO())
    call_command("flush", "--no-input")
    call_command("import_study", str(path), stdout=io.StringIO())
    study = Study.objects.get(name=rated.name)
    assert (study.queue_order, study.queue_order_from) == ("confidence", "tfidf-sgd, run 1")
    assert sorted(QueueWeight.objects.filter(study=study).values_list("issue__url", "weight")) == weights
    assert sorted(confidences(latest_run(MachineRater.objects.get(study=study))).values()) == sure


def test_the_comparisons_shares_three_ways_per_subset(rated, client_as, lead):
    """Per saved subset (a half of the reports, and the rest): each type's share of the subset's labeled
    reports, people's matching the comparison's own counts, and a bad rule or level refused by name."""
    from findings.comparison import compare_study
    from findings.models import Subset

    Study.objects.filter(pk=rated.pk).update(phase=Study.Phase.CLOSED)
    Membership.objects.create(study=rated, user=lead, role=Membership.Role.LEAD)
    half = Subset.objects.create(study=rated, name="first half")
    half.issues.set(sorted(rated.issues.values_list("pk", flat=True))[:487])
    client = client_as(lead)
    page = client.get(reverse("findings:shares", args=[rated.pk]), {"by": "subset", "level": "type"})
    assert page.status_code == 200 and 'data-testid="shares-subset"' in page.content.decode()
    rows = list(csv.DictReader(io.StringIO(b"".join(client.get(
        reverse("findings:shares_csv", args=[rated.pk]), {"by": "subset", "level": "type"}).streaming_content)
        .decode("utf-8-sig"))))
    subset = [r for r in rows if r["table"] == "subset"]
    comparison = compare_study(rated, "subset", "type")
    assert comparison.subsets == ["first half", "rest of the study"] and subset
    for i, year in enumerate(comparison.subsets):
        for j, code in enumerate(comparison.categories):
            row = next(r for r in subset if r["of"] == year and r["code"] == code)
            share = comparison.counts[i][j] / comparison.counts[i].sum()
            assert float(row["people_share"]) == pytest.approx(share, abs=1e-9)
    for bad in ({"by": "colour"}, {"by": "year", "level": "word"}):
        response = client.get(reverse("findings:shares", args=[rated.pk]), bad)
        assert response.status_code == 400 and (b"by:" in response.content or b"level:" in response.content)


def test_the_shares_are_kept_computed_once_and_again_when_a_label_changes(rated, client_as, lead, monkeypatch):
    """A worker computes the shares and keeps them: the page reads them back as computed, asks no worker again
    while nothing changed, and says it is computing while a worker has them in hand."""
    from findings import stored_shares
    from machines.models import Measurement

    Study.objects.filter(pk=rated.pk).update(phase=Study.Phase.CLOSED)
    Membership.objects.create(study=rated, user=lead, role=Membership.Role.LEAD)
    _keep_a_fifth(rated)
    rater = MachineRater.objects.get(study=rated)
    client = client_as(lead)
    def tables(page: str) -> str:
        return page[page.index('<div id="shares">'):]

    first = tables(client.get(reverse("findings:shares", args=[rated.pk])).content.decode())
    assert Measurement.objects.filter(level="shares").count() == 1
    again = stored_shares.requested(rated, rater)
    direct = estimates(rated, rater)
    row, same = _row(again, "type", "all years", "C").three, _row(direct, "type", "all years", "C").three
    assert (row.powered.value, row.powered.low, row.powered.lam) == (same.powered.value, same.powered.low,
                                                                      same.powered.lam)
    assert tables(client.get(reverse("findings:shares", args=[rated.pk])).content.decode()) == first
    assert Measurement.objects.filter(level="shares").count() == 1
    # A final label changes: the kept shares are stale; while a worker computes, the page says so and polls.
    FinalLabel.objects.filter(study=rated).first().delete()
    monkeypatch.setattr("concord.jobs.send", lambda *args, **kwargs: None)
    page = client.get(reverse("findings:shares", args=[rated.pk])).content.decode()
    assert 'data-testid="computing"' in page and 'hx-trigger="every 2s"' in page
    monkeypatch.undo()
    from django.core.cache import cache

    cache.clear()
    assert "people labeled 193 of them" in client.get(reverse("findings:shares", args=[rated.pk])).content.decode()
    assert Measurement.objects.filter(level="shares").count() == 2
