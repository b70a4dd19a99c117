"""The lead's and admins' pages for machine raters, and the two fragments other pages load: a report's machine
labels (only for a person who may see them) and the study page's flag of a decision whose sentinels fell."""
from __future__ import annotations

from urllib.parse import urlencode

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.paginator import Paginator
from django.db.models import Count
from django.http import Http404, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django.views.decorators.http import require_GET, require_POST

from annotation.access import get_study_for
from annotation.models import Study
from annotation.permissions import can_manage_seeing_labels
from concord.errors import FieldError
from concord.http import HtmxHttpRequest, job_progress
from concord.ids import parse_id
from concord.levels import level_name
from stats.alt_test import EPSILONS
from stats.jury import ALPHA_MIN, CONFIDENCE_MIN

from .forms import DecisionForm, RaterForm, WithdrawForm
from .measures import LEVELS
from .models import LlmCall, MachineRater, MachineRun, ReplacementDecision
from .selectors import labels_of_report, latest_run, raters_of, scopes
from .services import carried_decisions, decisions, delegation, stored_jury
from .services.measurements import requested
from .services.queue_order import QueueOrderError, order_by_doubt
from .services.raters import RaterError, add_rater
from .services.runs import RunError, interrupt_stale, start_run
from .services.seats import offers

# Who the annotators are, in the words of the alternative annotator test's rule of thumb for ε.
EXPERTISE = {"expert": gettext_lazy("expert"), "skilled": gettext_lazy("skilled"), "crowd": gettext_lazy("crowd")}

CALLS_PER_PAGE = 50


def _rater(study, rater_id: int) -> MachineRater:
    return get_object_or_404(MachineRater, pk=rater_id, study=study)


def _index_context(study, form=None) -> dict:
    interrupt_stale()
    raters = list(raters_of(study))
    for rater in raters:
        rater.newest = rater.runs.order_by("-pk").first()
        rater.of_record = latest_run(rater)
    watches = decisions.watches_kept(study)
    return {"study": study, "raters": raters, "form": form or RaterForm(), "watches": watches}


@login_required
@require_GET
def index(request: HtmxHttpRequest, study_id: int):
    study = get_study_for(request, study_id, can_manage_seeing_labels)
    return render(request, "machines/index.html", _index_context(study))


@login_required
@require_POST
def add(request: HtmxHttpRequest, study_id: int):
    study = get_study_for(request, study_id, can_manage_seeing_labels)
    form = RaterForm(request.POST)
    if form.is_valid():
        data = form.cleaned_data
        raw = {k: data[k] for k in ("folds", "features", "endpoint", "base_url", "api_key", "model", "temperature",
                                    "seed", "runs") if data[k] not in (None, "")}
        try:
            rater = add_rater(study, name=data["name"], kind=data["kind"], training=data["training"] or "final",
                              raw_settings=raw, by=request.user)
        except RaterError as exc:
            exc.add_to(form)
        else:
            messages.success(request, _("Added %(name)s. Run it to make its labels.") % {"name": rater.name})
            return redirect("machines:rater", study.pk, rater.pk)
    return render(request, "machines/index.html", _index_context(study, form), status=400)


def _choice(value, options, default):
    return value if value in options else default


@login_required
@require_GET
def rater_page(request: HtmxHttpRequest, study_id: int, rater_id: int):
    study = get_study_for(request, study_id, can_manage_seeing_labels)
    rater = _rater(study, rater_id)
    interrupt_stale()
    options = scopes(study)
    level = _choice(request.GET.get("level"), LEVELS, "type")
    type_codes = [t for lv, t in options if lv == level]
    type_code = _choice(request.GET.get("type", ""), type_codes, type_codes[0] if type_codes else "")
    epsilon_text = _choice(request.GET.get("epsilon"), {str(v) for v in EPSILONS.values()}, str(EPSILONS["skilled"]))
    epsilon = float(epsilon_text)
    of_record = latest_run(rater)
    measured = requested(of_record, level, type_code, epsilon) if of_record else None
    figures = measured.figures if measured else None
    form = DecisionForm(initial={"level": level, "type_code": type_code, "epsilon": epsilon_text,
                                 "expected_run": of_record.pk if of_record else 0})
    return render(request, "machines/rater.html", {
        "study": study, "rater": rater, "figures": figures, "computing": of_record is not None and measured is None,
        "level": level, "type_code": type_code,
        "epsilon": epsilon_text, "levels": [(lv, level_name(lv)) for lv in LEVELS],
        "level_name": level_name(level), "type_codes": sorted({t for _, t in options if t}),
        "epsilons": [(str(v), EXPERTISE.get(who, who)) for who, v in EPSILONS.items()],
        "runs": rater.runs.order_by("-pk")[:10],
        "newest": rater.runs.order_by("-pk").first(), "of_record": of_record, "form": form,
        "decisions": _with_seats(rater, request.user),
        "withdraw_form": WithdrawForm(), "calls": LlmCall.objects.filter(rater=rater).count(),
        "confusion_rows": list(zip(figures["confusion"]["categories"], figures["confusion"]["rows"], strict=True))
        if figures else []})


@login_required
@require_POST
def run(request: HtmxHttpRequest, study_id: int, rater_id: int):
    study = get_study_for(request, study_id, can_manage_seeing_labels)
    rater = _rater(study, rater_id)
    # "0" when the page showed no run; anything that is not a number expects a state that never is.
    expected = parse_id(request.POST.get("expected"))
    expected = -1 if expected is None else expected
    try:
        started = start_run(rater, by=request.user, expected_latest=expected)
    except RunError as exc:
        messages.error(request, exc.message)
    else:
        messages.success(request, _("Run %(number)s queued.") % {"number": started.number})
    return redirect("machines:rater", study.pk, rater.pk)


@login_required
@require_GET
def run_progress(request: HtmxHttpRequest, study_id: int, machine_run_id: int):
    study = get_study_for(request, study_id, can_manage_seeing_labels)
    found = get_object_or_404(MachineRun.objects.select_related("rater"), pk=machine_run_id, rater__study=study)
    return job_progress(request, "machines/_run.html", found, study=study)


@login_required
@require_GET
def calls(request: HtmxHttpRequest, study_id: int, rater_id: int):
    study = get_study_for(request, study_id, can_manage_seeing_labels)
    rater = _rater(study, rater_id)
    page = Paginator(LlmCall.objects.filter(rater=rater).select_related("issue__source"), CALLS_PER_PAGE).get_page(
        request.GET.get("page"))
    return render(request, "machines/calls.html", {"study": study, "rater": rater, "page": page})


@login_required
@require_POST
def decide(request: HtmxHttpRequest, study_id: int, rater_id: int):
    study = get_study_for(request, study_id, can_manage_seeing_labels)
    rater = _rater(study, rater_id)
    form = DecisionForm(request.POST)
    if form.is_valid():
        data = form.cleaned_data
        try:
            decisions.record(rater, level=data["level"], type_code=data["type_code"], epsilon=float(data["epsilon"]),
                             reason=data["reason"], by=request.user, expected_run=data["expected_run"],
                             sentinel_share=data["sentinel_share"])
        except decisions.DecisionError as exc:
            messages.error(request, str(exc) if exc.field else exc.message)
        else:
            messages.success(request, _("Decision recorded, with the figures it rests on."))
    else:
        messages.error(request, "; ".join(f"{field}: {' '.join(errs)}" for field, errs in form.errors.items()))
    query = f"?level={form.data.get('level', 'type')}&type={form.data.get('type_code', '')}"
    if not form.is_valid() or form.data.get("level") not in LEVELS:
        query = ""
    return redirect(reverse("machines:rater", args=[study.pk, rater.pk]) + query)


@login_required
@require_POST
def order_queues(request: HtmxHttpRequest, study_id: int, rater_id: int):
    study = get_study_for(request, study_id, can_manage_seeing_labels)
    rater = _rater(study, rater_id)
    expected = parse_id(request.POST.get("expected_run", ""))
    if expected is None:
        messages.error(request, _("expected_run: the run whose labels the page showed, as a number"))
    else:
        try:
            weighed = order_by_doubt(rater, expected_run=expected, by=request.user)
        except QueueOrderError as exc:
            messages.error(request, str(exc) if exc.field else exc.message)
        else:
            messages.success(request, _("The queues will deal the %(n)s reports by %(name)s's doubt.")
                             % {"n": weighed, "name": rater.name})
    return redirect("machines:rater", study_id=study.pk, rater_id=rater.pk)


def _with_seats(rater: MachineRater, user) -> list[ReplacementDecision]:
    """The rater's decisions, each with the seat it took (and on how many reports) or whose seat it could take,
    and the other studies the user could carry it to."""
    found = list(rater.decisions.select_related("decided_by", "withdrawn_by", "seat__annotator", "seat__round",
                                                "seat__taken_by", "seat__given_back_by").order_by("-decided_at"))
    for d in found:
        d.seat_reports = d.seat.labels.count() if d.seat else 0
        d.offers = offers(d) if d.seat is None or not d.seat.standing else []
        d.targets = carried_decisions.targets(d, user) if d.withdrawn_at is None and d.level == "type" else []
    return found


@login_required
@require_POST
def apply(request: HtmxHttpRequest, study_id: int, decision_id: int):
    study = get_study_for(request, study_id, can_manage_seeing_labels)
    decision = get_object_or_404(ReplacementDecision, pk=decision_id, rater__study=study)
    annotator, expected = parse_id(request.POST.get("annotator")), parse_id(request.POST.get("expected_withdrawn"))
    if annotator is None or expected is None:
        messages.error(request, _("annotator and expected_withdrawn: the person and the number of reports the page "
                                  "named, as whole numbers; nothing was changed"))
        return redirect("machines:rater", study.pk, decision.rater_id)
    try:
        seat = decisions.apply(decision, annotator_id=annotator, expected=expected, by=request.user)
    except FieldError as exc:
        messages.error(request, str(exc) if exc.field else exc.message)
    else:
        messages.success(request, _("%(machine)s stands in %(person)s's seat: %(n)s reports left their queue.")
                         % {"machine": decision.rater.name, "person": seat.annotator.username,
                            "n": seat.labels.count()})
    return redirect("machines:rater", study.pk, decision.rater_id)


@login_required
@require_POST
def carry_decision(request: HtmxHttpRequest, study_id: int, decision_id: int):
    study = get_study_for(request, study_id, can_manage_seeing_labels)
    decision = get_object_or_404(ReplacementDecision, pk=decision_id, rater__study=study)
    to = parse_id(request.POST.get("to"))
    target = Study.objects.filter(pk=to).first() if to is not None else None
    if target is None:
        messages.error(request, _("to: one of the studies the page offered, by its number; nothing was carried"))
        return redirect("machines:rater", study.pk, decision.rater_id)
    try:
        carried = carried_decisions.carry(decision, to=target, by=request.user, reason=request.POST.get("reason", ""))
    except FieldError as exc:
        messages.error(request, str(exc) if exc.field else exc.message)
    else:
        messages.success(request, _("The decision stands in %(study)s too, for its rater %(rater)s: run it there, then "
                                    "apply the decision in that study's independent round.")
                         % {"study": target.name, "rater": carried.rater.name})
    return redirect("machines:rater", study.pk, decision.rater_id)


@login_required
@require_POST
def withdraw(request: HtmxHttpRequest, study_id: int, decision_id: int):
    study = get_study_for(request, study_id, can_manage_seeing_labels)
    decision = get_object_or_404(ReplacementDecision, pk=decision_id, rater__study=study)
    form = WithdrawForm(request.POST)
    if form.is_valid():
        try:
            decisions.withdraw(decision, by=request.user, reason=form.cleaned_data["reason"])
        except decisions.DecisionError as exc:
            messages.error(request, exc.message)
        else:
            said = _("Decision withdrawn.")
            if decision.seat_id:
                said += " " + _("%(n)s reports returned to %(person)s's queue.") % {
                    "n": decision.seat.returned, "person": decision.seat.annotator.username}
            messages.success(request, said)
    else:
        messages.error(request, _("reason: say why the decision is withdrawn"))
    return redirect("machines:rater", study.pk, decision.rater_id)


@login_required
@require_GET
def report_labels(request: HtmxHttpRequest, study_id: int, issue_id: int):
    """Loaded into review and adjudication pages: empty unless the viewer may see machine labels of the report."""
    study = get_study_for(request, study_id)
    if not study.issues.filter(pk=issue_id).exists():
        raise Http404("No such report in this study.")
    shown = labels_of_report(request.user, study, issue_id)
    if not shown:
        return HttpResponse("")
    return render(request, "machines/_report_labels.html", {"study": study, "shown": shown})


@login_required
@require_GET
def flags(request: HtmxHttpRequest, study_id: int):
    """Loaded into the study page: standing decisions whose machine now agrees less on the sentinels."""
    study = get_study_for(request, study_id)
    if not can_manage_seeing_labels(request.user, study):
        return HttpResponse("")
    # A watch still being measured flags nothing yet; the next visit shows it.
    fallen = [w for w in decisions.watches_kept(study) if w.below]
    if not fallen:
        return HttpResponse("")
    return render(request, "machines/_flags.html", {"study": study, "fallen": fallen})


def _jury_raters(study, data) -> list[MachineRater]:
    """The raters the request names (ids of this study's raters; others are ignored), in name order."""
    ids = {i for i in (parse_id(v) for v in data.getlist("rater")[:50]) if i is not None}
    return list(raters_of(study).filter(pk__in=ids))


@login_required
@require_GET
def jury(request: HtmxHttpRequest, study_id: int):
    """Delegating to a jury: choose three or more raters and the thresholds; the page says what it would do."""
    study = get_study_for(request, study_id, can_manage_seeing_labels)
    chosen = _jury_raters(study, request.GET)
    alpha, confidence = request.GET.get("alpha", ""), request.GET.get("confidence", "")
    planned, problem, measured = None, "", None
    if chosen:
        try:
            planned = delegation.plan(study, chosen, alpha or None, confidence or None)
        except FieldError as exc:
            problem = exc.message
        else:
            measured = stored_jury.requested(study, chosen, planned.alpha_min, planned.confidence_min)
    seats = delegation.standing_jury_seats(study).select_related("annotator").annotate(n=Count("labels"))
    return render(request, "machines/jury.html", {
        "study": study, "raters": [r for r in raters_of(study) if latest_run(r)], "chosen": {r.pk for r in chosen},
        "alpha": alpha or ALPHA_MIN, "confidence": confidence or CONFIDENCE_MIN, "plan": planned,
        "problem": problem, "seats": seats, "measured": measured,
        "measuring": planned is not None and measured is None})


@login_required
@require_POST
def delegate(request: HtmxHttpRequest, study_id: int):
    study = get_study_for(request, study_id, can_manage_seeing_labels)
    chosen = _jury_raters(study, request.POST)
    expected = parse_id(request.POST.get("expected"))
    alpha, confidence = request.POST.get("alpha"), request.POST.get("confidence")
    if expected is None:
        messages.error(request, _("expected: the number of reports the page said would leave the queues"))
    else:
        try:
            seats = delegation.apply(study, chosen, alpha_min=alpha, confidence_min=confidence, expected=expected,
                                     by=request.user)
        except FieldError as exc:
            messages.error(request, str(exc) if exc.field else exc.message)
        else:
            messages.success(request, _("The jury stands in the seats of %(n)s people on the reports it took.")
                             % {"n": len(seats)})
    query = urlencode({"rater": [r.pk for r in chosen], "alpha": alpha or "", "confidence": confidence or ""},
                      doseq=True)
    return redirect(reverse("machines:jury", args=[study.pk]) + f"?{query}")


@login_required
@require_POST
def end_delegation(request: HtmxHttpRequest, study_id: int):
    study = get_study_for(request, study_id, can_manage_seeing_labels)
    back = delegation.end(study, request.user)
    messages.success(request, _("Delegation ended: %(n)s reports returned to people's queues.") % {"n": back})
    return redirect("machines:jury", study.pk)
