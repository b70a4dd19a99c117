"""The summary experiment's page, for the lead and admins: did the summary shape the labels?"""
from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.shortcuts import render
from django.views.decorators.http import require_GET

from annotation.access import get_study_for
from annotation.permissions import can_manage_seeing_labels
from concord.http import HtmxHttpRequest

from ..summary_experiment import experiment


@login_required
@require_GET
def summary_experiment(request: HtmxHttpRequest, study_id: int):
    study = get_study_for(request, study_id, can_manage_seeing_labels)
    result = experiment(study, seed=study.seed)
    distribution = result["distribution"]
    rows = []
    if distribution and distribution["shares"]:
        for i, arm in enumerate(("summary shown", "summary hidden")):
            rows.append((arm, [(n, s, lo, hi) for n, s, lo, hi in zip(
                distribution["counts"][i], distribution["shares"][i], distribution["share_low"][i],
                distribution["share_high"][i], strict=True)]))
    return render(request, "findings/summary_experiment.html", {"study": study, "result": result, "rows": rows})
