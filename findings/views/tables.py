"""Statistics pages: the Table 1 and Figure 3 views, each with a chart and a CSV, from final labels; and the
admins' screening report, Table 1 over every source with the majority type of each report's labels."""
from __future__ import annotations

from collections import Counter

from django.contrib.auth.decorators import login_required
from django.shortcuts import render
from django.utils.text import slugify
from django.views.decorators.http import require_GET

from annotation.access import get_study_for
from annotation.models import FinalLabel, Seat
from annotation.permissions import can_view_agreement
from annotation.selectors.labels import majority_types
from concord import replica
from concord.csv_stream import csv_lines, csv_response
from concord.http import HtmxHttpRequest
from ingest.models import Source
from ingest.selectors import source_report
from ingest.views.access import staff_required
from taxonomy.models import Category

from ..tables import figure3, parse_groups, table1, unknown_in_groups


def _pct(value) -> str:
    return "" if value is None else f"{100 * value:.2f}"


@login_required
@require_GET
def statistics(request: HtmxHttpRequest, study_id: int):
    # Counts per final type and theme are labels' aggregates: the blind rule applies.
    study = get_study_for(request, study_id, can_view_agreement)
    groups_text = request.GET.get("groups", "")
    groups = parse_groups(groups_text)
    # From the replica when there is one that holds the person's own writes; the page says as of when.
    with replica.stale_reads(replica.last_write(request)) as read:
        rows, years, types = table1(study)
        blocks = figure3(study, groups)
    context = {
        "study": study, "rows": rows, "years": years, "types": types, "blocks": blocks, "groups_text": groups_text,
        "unknown_codes": unknown_in_groups(study, groups), "as_of": read.as_of,
        "year_totals": [sum(r.by_year.get(y, 0) for r in rows) for y in years],
        "type_totals": [sum(r.by_type.get(t, 0) for r in rows) for t in types],
        "charts": [(b, [(f"{t.code} {t.name}"[:28], t.share) for t in b.themes]) for b in blocks],
        "seats": Seat.objects.filter(study=study).exists(),
        "machine_voted": FinalLabel.objects.filter(study=study, machine_votes__gt=0).count(),
    }
    return render(request, "findings/statistics.html", context)


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


@login_required
@staff_required
@require_GET
def screening_report(request: HtmxHttpRequest):
    """The study's Table 1 from the data: per source, included reports by year and type, and the
    false-positive rate of its keyword filter."""
    rows = [source_report(source) for source in Source.objects.order_by("display_name", "full_name")]
    types_of = majority_types([row.source.pk for row in rows])
    years = sorted({year for row in rows for year in row.by_year})
    types = list(Category.objects.filter(level=Category.Level.TYPE).order_by("name").values_list("name", flat=True)
                 .distinct()) + ["unlabeled"]
    table = []
    for row in rows:
        by_type = Counter(types_of.get(i, "") or "unlabeled" for i in row.included_ids)
        table.append({"row": row, "years": [row.by_year.get(y, 0) for y in years],
                      "types": [by_type.get(t, 0) for t in types],
                      "rates": [row.false_positive, row.relevant_precision, row.false_negative]})
    return render(request, "findings/screening_report.html", {"table": table, "years": years, "types": types})
