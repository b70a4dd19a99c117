"""Statistics pages: the Table 1 and Figure 3 views, each with a chart and a CSV, from final labels."""
from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.shortcuts import render
from django.utils.text import slugify
from django.views.decorators.http import require_GET

from concord.csv_stream import csv_lines, csv_response
from concord.http import HtmxHttpRequest

from ..access import get_study_for
from ..permissions import can_view_agreement
from ..statistics import figure3, parse_groups, table1


def _pct(value) -> str:
    return "" if value is None else f"{100 * value:.2f}"


@login_required
@require_GET
def statistics(request: HtmxHttpRequest, study_id: int):
    # Counts per final type and theme are labels' aggregates: the blind rule applies.
    study = get_study_for(request, study_id, can_view_agreement)
    groups_text = request.GET.get("groups", "")
    rows, years, types = table1(study)
    blocks = figure3(study, parse_groups(groups_text))
    context = {
        "study": study, "rows": rows, "years": years, "types": types, "blocks": blocks, "groups_text": groups_text,
        "year_totals": [sum(r.by_year.get(y, 0) for r in rows) for y in years],
        "type_totals": [sum(r.by_type.get(t, 0) for r in rows) for t in types],
        "charts": [(b, [(f"{t.code} {t.name}"[:28], t.share) for t in b.themes]) for b in blocks],
    }
    return render(request, "annotation/statistics.html", context)


@login_required
@require_GET
def table1_csv(request: HtmxHttpRequest, study_id: int):
    study = get_study_for(request, study_id, can_view_agreement)
    rows, years, types = table1(study)
    columns = ["source", "reports", *[str(y) for y in years], *types, "false_positive_rate", "false_positive_n",
               "false_positive_low", "false_positive_high"]
    body = ([r.source, r.reports, *[r.by_year.get(y, 0) for y in years], *[r.by_type.get(t, 0) for t in types],
             *((r.false_positive["rate"], r.false_positive["n"], r.false_positive["low"], r.false_positive["high"])
               if r.false_positive else ("", "", "", ""))] for r in rows)

    return csv_response(csv_lines(columns, body), f"{slugify(study.name)}-table1.csv")


@login_required
@require_GET
def figure3_csv(request: HtmxHttpRequest, study_id: int):
    study = get_study_for(request, study_id, can_view_agreement)
    blocks = figure3(study, parse_groups(request.GET.get("groups", "")))

    def body():
        for b in blocks:
            for t in b.themes:
                yield [b.code, b.name, "theme", t.code, t.name, t.count, b.total, _pct(t.share)]
            for name, members, count, share in b.groups:
                yield [b.code, b.name, "group", " ".join(members), name, count, b.total, _pct(share)]

    columns = ["type_code", "type", "kind", "code", "name", "reports", "type_reports", "share_percent"]
    return csv_response(csv_lines(columns, body()), f"{slugify(study.name)}-figure3.csv")
