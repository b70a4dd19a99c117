from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.db import transaction
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_POST

from annotation.access import get_study_for
from annotation.models import Round
from annotation.permissions import can_manage_seeing_labels, can_view_agreement
from annotation.selectors.labels import counted_in_round, raters
from annotation.selectors.studies import agreement_round
from concord.errors import FieldError
from concord.http import HtmxHttpRequest
from concord.ids import parse_id
from concord.levels import level_name
from stats.planner import LOOK_EVERY, STOP_RULE, degenerate, enough, stop_now
from taxonomy.codes import sort_key

from .pairs import asked_pair
from .reports import LEVELS, tree_distance_of
from .selectors import history, latest, latest_plan, pair_figures, pair_reports
from .services import computing, is_current, request_plan, request_snapshot


def _level(request) -> str:
    level = request.GET.get("level") or request.POST.get("level") or "theme"
    return level if level in LEVELS else "theme"


def _same_tree(snapshot, study) -> bool:
    """Whether the snapshot was computed with the study's tree distance."""
    kept = tree_distance_of(snapshot.figures)
    return (kept["sibling"], kept["same_type"]) == (study.tree_sibling, study.tree_same_type)


@login_required
@require_GET
def study_agreement_page(request: HtmxHttpRequest, study_id: int):
    """The lead's dashboard: the latest snapshot of every figure, and how the figures moved."""
    study = get_study_for(request, study_id, can_view_agreement)
    round = agreement_round(study)
    level = _level(request)
    context = {"study": study, "round": round, "level": level, "level_name": level_name(level),
               "levels": [(lv, level_name(lv)) for lv in LEVELS]}
    if round is not None:
        current = latest(request.user, study, level)
        # Figures follow the labels: a label saved, a seat changed or a final label written (closing the study
        # writes them all) since the snapshot was taken sends a computation, once however many pages ask.
        if not is_current(current, round) or not _same_tree(current, study):
            request_snapshot(round, level, by=request.user)
            current = latest(request.user, study, level)
        if current is None or current.round_id != round.pk:
            context["computing"] = True
            return render(request, "agreement/study_agreement.html", context)
        figures = current.figures
        context["recomputing"] = computing(round, level)
        snapshots = history(request.user, study, level)
        context.update({
            "snapshot": current, "figures": figures,
            "labels_now": counted_in_round(round).count(),
            "raters": raters(round),
            "type_rows": [(f"{t['name']} ({t['type']})", t["fleiss"]["value"], t["fleiss"]["ci_low"],
                           t["fleiss"]["ci_high"]) for t in figures["per_type"]]
            + [(_("All reports, type"), figures["type"]["value"], figures["type"]["ci_low"],
                figures["type"]["ci_high"])],
            "category_rows": [(t, sorted(t["fleiss"]["per_category"].items(), key=lambda kv: sort_key(kv[0])))
                              for t in figures["per_type"]
                              if t["fleiss"]["per_category"]],
            "rater_rows": [(r["rater"], r["agreement"]) for r in figures["raters"]],
            "trend": [(_("%(at)s (%(n)s labels)") % {"at": f"{s.computed_at:%Y-%m-%d %H:%M}", "n": s.labels},
                       s.figures["type"]["value"])
                      for s in snapshots if s.round_id == round.pk],
        })
    return render(request, "agreement/study_agreement.html", context)


@login_required
@require_POST
def recompute(request: HtmxHttpRequest, study_id: int):
    """Recompute, if the figures are still those the page showed (`expected`: the snapshot's id, 0 for none), so
    a double click or two people at once recompute once."""
    study = get_study_for(request, study_id, can_view_agreement)
    round = agreement_round(study)
    level = _level(request)
    expected = parse_id(request.POST.get("expected"))
    if round is not None:
        with transaction.atomic():
            # Two requests take turns here. NO KEY UPDATE: labels saved meanwhile (which only reference the round)
            # are not held up, however long an in-request computation takes.
            Round.objects.select_for_update(no_key=True).filter(pk=round.pk).first()
            before = latest(request.user, study, level)
            if expected is None:
                messages.error(request, "The request did not say which figures it recomputes; use the dashboard's "
                                        "button.")
            elif expected != (before.pk if before else 0):
                messages.info(request, "The figures were recomputed since this page was shown: these are the new ones.")
            else:
                request_snapshot(round, level, by=request.user)
                taken = latest(request.user, study, level)
                if taken is not None and taken != before:
                    messages.success(request, f"Recomputed on {taken.labels} labels in {taken.seconds:.1f} s.")
                else:
                    messages.info(request, "Recomputing in the background.")
    return redirect(reverse("agreement:study_agreement", args=[study.pk]) + f"?level={level}")


WIDTHS = ("0.2", "0.15", "0.1", "0.05", "0.03", "0.02")


@login_required
@require_GET
def planner(request: HtmxHttpRequest, study_id: int):
    """How many more reports (or raters) would narrow each kappa's interval to the chosen width."""
    study = get_study_for(request, study_id, can_view_agreement)
    round = agreement_round(study)
    level = _level(request)
    width = request.GET.get("width") if request.GET.get("width") in WIDTHS else "0.1"
    context = {"study": study, "level": level, "width": width, "widths": WIDTHS, "plans": [], "round": round,
               "rule": STOP_RULE.format(width=width, every=LOOK_EVERY), "look_every": LOOK_EVERY,
               "levels": [(lv, level_name(lv)) for lv in LEVELS]}
    if round is not None:
        # Simulated by a worker (seconds of numpy) and kept while the labels stand, as the dashboard's figures.
        found = latest_plan(request.user, study, round, level)
        if not is_current(found, round):
            request_plan(round, level)
            found = latest_plan(request.user, study, round, level)
        if is_current(found, round):
            context["plans"] = [(name, simulated | {
                "enough_reports": enough(simulated, float(width)),
                "stop": stop_now(simulated.get("now"), float(width), simulated.get("reports", 0)),
                "degenerate": degenerate(simulated.get("now"), simulated.get("reports", 0))})
                for name, simulated in found.plans]
        else:
            context["computing"] = True
    return render(request, "agreement/planner.html", context)


@login_required
@require_GET
def pair(request: HtmxHttpRequest, study_id: int):
    """A confused pair of categories: its figures, both codes' definitions, and the reports people gave both,
    behind the same blind rule as the dashboard's figures."""
    study = get_study_for(request, study_id, can_view_agreement)
    round = agreement_round(study)
    try:
        asked = asked_pair(study, request.GET)
    except FieldError as exc:
        return render(request, "agreement/pair.html", {"study": study, "refusal": str(exc)}, status=400)
    snapshot = latest(request.user, study, asked.level)
    total, reports = pair_reports(request.user, study, round, asked.at, asked.first, asked.second)
    categories = {c.code: c for c in study.codebook.categories.filter(code__in=[asked.first, asked.second])}
    clarifiable = all(code in categories and categories[code].retired_at is None
                      for code in (asked.first, asked.second))
    return render(request, "agreement/pair.html", {
        "study": study, "round": round, "asked": asked, "snapshot": snapshot,
        "figures": pair_figures(snapshot, asked.at, asked.first, asked.second),
        "total": total, "reports": reports,
        "codes": [(code, categories.get(code)) for code in (asked.first, asked.second)],
        "may_clarify": clarifiable and snapshot is not None and can_manage_seeing_labels(request.user, study),
    })
