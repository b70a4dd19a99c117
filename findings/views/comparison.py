"""Are subsets labeled differently? The comparison page, its CSV, the baseline draw, and the dataset card."""
from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.db import transaction
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.text import slugify
from django.views.decorators.http import require_GET, require_POST

from annotation.access import get_study_for
from annotation.permissions import can_manage, can_manage_seeing_labels, can_view_agreement
from annotation.services.selection import SelectionError
from concord import form_tokens
from concord.csv_stream import csv_lines, csv_response
from concord.errors import FieldError, form_refusal
from concord.http import HtmxHttpRequest
from ingest.models import Keyword

from ..comparison import (
    LEVELS,
    RULES,
    as_dict,
    compare_study,
    overlapping,
)
from ..forms import BaselineForm, ComparisonForm, SubsetForm
from ..models import ComparisonRecord
from ..subsets import define_subset, draw_baseline


def _choice(request) -> tuple[str, str]:
    form = ComparisonForm(request.GET if request.method == "GET" else request.POST)
    form.is_valid()  # never refuses: an unknown or unusable value falls back to the default
    return form.cleaned_data.get("by", "source"), form.cleaned_data.get("level", "theme")


@login_required
@require_GET
def comparison(request: HtmxHttpRequest, study_id: int):
    study = get_study_for(request, study_id, can_view_agreement)
    by, level = _choice(request)
    result = compare_study(study, by, level)
    rows = []
    for s, subset in enumerate(result.subsets):
        cells = []
        for c, _category in enumerate(result.categories):
            cells.append({
                "count": int(result.counts[s, c]),
                "share": None if result.shares is None else result.shares[s, c],
                "low": None if result.share_low is None else result.share_low[s, c],
                "high": None if result.share_high is None else result.share_high[s, c],
                "residual": None if result.residuals is None else result.residuals[s, c],
            })
        rows.append((subset, int(result.counts[s].sum()), cells))
    charts = [(subset, [(c, cells[i]["share"] or 0) for i, c in enumerate(result.categories)])
              for subset, _n, cells in rows]
    return render(request, "findings/comparison.html", {
        "study": study, "by": by, "level": level, "rules": RULES.items(), "levels": LEVELS, "result": result,
        "rows": rows, "charts": charts, "manages": can_manage(request.user, study),
        "subsets": study.subsets.all(), "keyword_groups": Keyword.Origin.choices,
        "overlap": overlapping(study) if by == "subset" else 0,
        "sources": _sources(study),
    })


def _sources(study) -> list[str]:
    return sorted(set(study.issues.values_list("source__full_name", flat=True)))


@login_required
@require_GET
def comparison_csv(request: HtmxHttpRequest, study_id: int):
    study = get_study_for(request, study_id, can_view_agreement)
    by, level = _choice(request)
    data = as_dict(compare_study(study, by, level), by, level)

    def body():
        for s, subset in enumerate(data["subsets"]):
            for c, category in enumerate(data["categories"]):
                yield [subset, category, data["counts"][s][c],
                       *(data[k][s][c] if data[k] else "" for k in ("shares", "share_low", "share_high", "residuals")),
                       data["chi2"], data["df"], data["p"], data["cramers_v"], data["exact_p"] or ""]

    columns = ["subset", level, "reports", "share", "share_low", "share_high", "adjusted_residual", "chi2", "df", "p",
               "cramers_v", "exact_p"]
    return csv_response(csv_lines(columns, body()), f"{slugify(study.name)}-by-{by}-{level}.csv")


@login_required
@require_POST
def baseline(request: HtmxHttpRequest, study_id: int):
    study = get_study_for(request, study_id, can_manage_seeing_labels)
    form = BaselineForm(request.POST)
    try:
        if not form.is_valid():
            raise form_refusal(form)
        data = form.cleaned_data
        with transaction.atomic():
            form_tokens.claim(request.POST.get(form_tokens.FIELD))  # a double click draws once
            subset = draw_baseline(study, data["size"], data["seed"] or 0, data["name"].strip() or "baseline",
                                   keyword_group=data["keyword_group"])
    except (FieldError, form_tokens.AlreadySent) as exc:
        messages.error(request, str(exc))
    else:
        messages.success(request, f"Drew {subset.issues.count()} reports into the study as subset {subset.name!r}; "
                                  "they are in the annotators' queues.")
    return redirect(reverse("findings:comparison", args=[study.pk]) + "?by=subset")


@login_required
@require_POST
def add_to_card(request: HtmxHttpRequest, study_id: int):
    study = get_study_for(request, study_id, can_manage_seeing_labels)
    by, level = _choice(request)
    try:
        with transaction.atomic():
            form_tokens.claim(request.POST.get(form_tokens.FIELD))  # a double click adds the comparison once
            ComparisonRecord.objects.create(study=study, by=by, level=level,
                                            figures=as_dict(compare_study(study, by, level), by, level))
    except form_tokens.AlreadySent as exc:
        messages.error(request, str(exc))
        return redirect(reverse("findings:comparison", args=[study.pk]) + f"?by={by}&level={level}")
    messages.success(request, "The comparison will appear in the dataset card.")
    return redirect(reverse("findings:comparison", args=[study.pk]) + f"?by={by}&level={level}")


@login_required
@require_POST
def subset_define(request: HtmxHttpRequest, study_id: int):
    study = get_study_for(request, study_id, can_manage_seeing_labels)
    form = SubsetForm(request.POST, sources=_sources(study))
    try:
        if not form.is_valid():
            raise form_refusal(form)
        data = form.cleaned_data
        with transaction.atomic():
            form_tokens.claim(request.POST.get(form_tokens.FIELD))  # a double click defines the subset once
            subset = define_subset(study, data["name"], sources=data["sources"], years=data["years"],
                                   type_code=data["type"].strip(), keyword=data["keyword"],
                                   keyword_group=data["keyword_group"], verdict=data["verdict"],
                                   saved_list=data["saved_list"])
    except (FieldError, SelectionError, form_tokens.AlreadySent) as exc:
        messages.error(request, str(exc))
    else:
        messages.success(request, f"Subset {subset.name!r}: {subset.issues.count()} reports.")
    return redirect(reverse("findings:comparison", args=[study.pk]) + "?by=subset")
