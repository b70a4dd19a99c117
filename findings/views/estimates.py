"""The shares of the study's tables three ways — people's labels, a machine's, prediction-powered — as a page and
a CSV, for a machine rater of the study chosen by `?rater=`."""
from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.http import HttpResponseBadRequest
from django.shortcuts import render
from django.utils.text import slugify
from django.views.decorators.http import require_GET

from annotation.access import get_study_for
from annotation.permissions import can_manage_seeing_labels, can_view_agreement
from concord.csv_stream import csv_lines, csv_response
from concord.http import HtmxHttpRequest
from concord.ids import parse_id
from machines.selectors import latest_run, raters_of

from .. import stored_shares
from ..comparison import LEVELS, RULES
from ..estimates import default_rater


def _rater(request: HtmxHttpRequest, study):
    """The chosen rater, the default one, or a message naming what was wrong with `rater`."""
    given = request.GET.get("rater")
    if not given:
        return default_rater(study), None
    pk = parse_id(given)
    rater = raters_of(study).filter(pk=pk).first() if pk is not None else None
    if rater is None:
        return None, f"rater: no machine rater of this study has the id {given[:40]!r}"
    return rater, None


def _asked(request: HtmxHttpRequest, study):
    """The rater, and the comparison's rule and level the page asks for; or a message naming what was wrong."""
    rater, problem = _rater(request, study)
    by, level = request.GET.get("by", ""), request.GET.get("level", "theme")
    if problem is None and by and by not in RULES:
        problem = f"by: one of {', '.join(RULES)}, not {by[:40]!r}"
    if problem is None and level not in LEVELS:
        problem = f"level: one of {', '.join(LEVELS)}, not {level[:40]!r}"
    return rater, by, level, problem


@login_required
@require_GET
def shares(request: HtmxHttpRequest, study_id: int):
    # Aggregates of labels: the blind rule applies, as on the statistics page.
    study = get_study_for(request, study_id, can_view_agreement)
    rater, by, level, problem = _asked(request, study)
    if problem:
        return HttpResponseBadRequest(problem)
    found = stored_shares.requested(study, rater, by, level) if rater is not None else None
    computing = rater is not None and found is None and latest_run(rater) is not None
    return render(request, "findings/shares.html", {
        "study": study, "rater": rater, "raters": list(raters_of(study)), "estimates": found, "by": by,
        "level": level, "rules": RULES, "levels": LEVELS, "computing": computing,
        # The machine raters' page is the lead's and the admins' (while they may see the labels): no one else is
        # shown a link to it.
        "may_add_raters": can_manage_seeing_labels(request.user, study)})


def _cells(estimate) -> list:
    if estimate is None:
        return ["", "", "", ""]
    return [estimate.value, estimate.low, estimate.high, estimate.n + estimate.unlabeled]


@login_required
@require_GET
def shares_csv(request: HtmxHttpRequest, study_id: int):
    study = get_study_for(request, study_id, can_view_agreement)
    rater, by, level, problem = _asked(request, study)
    if problem:
        return HttpResponseBadRequest(problem)
    # A download waits for its figures: the kept ones, else computed here.
    found = None
    if rater is not None:
        found = stored_shares.requested(study, rater, by, level) or stored_shares.compute(study, rater, by, level)
    columns = ["table", "of", "code", "name", "people_share", "people_low", "people_high", "people_n",
               "machine_share", "machine_low", "machine_high", "machine_n", "powered_share", "powered_low",
               "powered_high", "powered_n", "powered_lambda", "enough_people_labels", "rater", "run"]

    def body():
        for section in found.sections if found else []:
            for row in section.rows:
                three = row.three
                powered = three.powered if found.valid else None
                yield [section.key, row.group, row.code, row.name, *_cells(three.people), *_cells(three.machine),
                       *_cells(powered), "" if powered is None else powered.lam,
                       "yes" if three.enough else "no", found.rater.name, found.run_number]

    return csv_response(csv_lines(columns, body()), f"{slugify(study.name)}-shares-three-ways.csv")
