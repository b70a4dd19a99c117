"""Studies: the list, set-up, the phase page where the lead moves the study on, and the label export."""
from __future__ import annotations

import secrets

from django.contrib import messages
from django.contrib.admin.views.decorators import staff_member_required
from django.contrib.auth.decorators import login_required
from django.core.exceptions import NON_FIELD_ERRORS, PermissionDenied
from django.db import transaction
from django.shortcuts import redirect, render
from django.utils.text import slugify
from django.utils.translation import gettext as _
from django.utils.translation import ngettext
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from concord.audit import record as audit
from concord.csv_stream import csv_response
from concord.http import HtmxHttpRequest
from concord.ids import parse_id
from taxonomy.services import copy_codebook

from ..access import get_study_for
from ..exports.labels import label_csv_rows
from ..forms import StudySettingsForm, StudySetupForm
from ..models import FinalLabel, Membership, Study
from ..permissions import can_export, can_manage, can_view_agreement, is_lead, labels_blind, role_in
from ..selectors.final_labels import final_label_counts
from ..selectors.phases import NEXT_PHASE, missing_labels, next_step, open_round, what_next
from ..selectors.queue import progress_for
from ..selectors.studies import current_round, studies_for
from ..services.labels import LabelError
from ..services.labels import stop_labeling as stop_labeling_blind
from ..services.phases import PhaseError, advance, expected_state, state_of
from ..services.selection import Selection, SelectionError, select_reports
from ..services.studies import StudyError, create_study, update_settings


@login_required
@require_GET
def study_list(request: HtmxHttpRequest):
    rows = []
    for study in studies_for(request.user):
        round = current_round(study)
        role = role_in(request.user, study)
        rows.append({
            "study": study, "role": role, "round": round,
            "role_name": Membership.Role(role).label.lower() if role else "",
            "progress": progress_for(request.user, round) if round and role else None,
            "can_see_agreement": can_view_agreement(request.user, study),
            "lead_blind": round is not None and is_lead(request.user, study) and labels_blind(request.user, study),
            # A lead labeling blind manages the study but may not export its labels yet: no link that answers 403.
            "can_export": can_export(request.user, study),
        })
    return render(request, "annotation/study_list.html", {"rows": rows})


@login_required
@require_GET
def study_detail(request: HtmxHttpRequest, study_id: int):
    """The study's phase, what it means, progress; for the lead, who still has labels to give and the button
    that moves the study on."""
    study = get_study_for(request, study_id)
    round = open_round(study)
    manages = can_manage(request.user, study)
    context = {
        "study": study, "round": round, "manages": manages, "role": role_in(request.user, study),
        "phases": study.Phase.choices, "next_phase": NEXT_PHASE.get(study.phase),
        "progress": progress_for(request.user, round) if round else None,
        "missing": missing_labels(round, request.user if labels_blind(request.user, study) else None)
        if round and manages else [],
        "next_step": None, "expected": state_of(study), "pilot_percent": study.pilot_fraction * 100,
        "rounds": study.rounds.order_by("number"),
        "can_see_agreement": can_view_agreement(request.user, study),
        "lead_blind": round is not None and is_lead(request.user, study) and labels_blind(request.user, study),
        "finals": _finals(study) if can_view_agreement(request.user, study) else [],
    }
    if manages and context["next_phase"]:
        context["next_phase_label"] = study.Phase(context["next_phase"]).label
        context["next_step"] = next_step(study, round, context["missing"])
    if manages:
        # What is left of the lead's own queue (none once they stopped labeling, which `missing` leaves out).
        own_left = next((m.count for m in context["missing"] if m.username == request.user.get_username()), None)
        context["what_next"] = what_next(study, round, context["missing"], own_left)
    return render(request, "annotation/study_detail.html", context)


def _finals(study) -> list[tuple[str, int]]:
    made = final_label_counts(study)
    return [(label.lower(), made[method]) for method, label in FinalLabel.Method.choices if made.get(method)]


@login_required
@require_POST
def study_advance(request: HtmxHttpRequest, study_id: int):
    study = get_study_for(request, study_id, can_manage)
    if request.POST.get("confirm") != "yes":
        # Closing a round or the study cannot be undone: the lead confirms what the page said it does.
        step = next_step(study, (round := open_round(study)), missing_labels(round) if round else [])
        said = " ".join(step.consequences) if step else ""
        messages.error(request, (_("Nothing changed: tick the box to confirm.") + " " + said).strip())
        return redirect("annotation:study_detail", study_id=study.pk)
    try:
        study = advance(study, request.user, confirm_missing=True,
                        expected=expected_state(request.POST), require_expected=True)
    except PhaseError as exc:
        messages.error(request, str(exc))
        return redirect("annotation:study_detail", study_id=study.pk)
    messages.success(request, _("%(study)s is now in its %(phase)s phase.")
                     % {"study": study.name, "phase": study.get_phase_display().lower()})
    return redirect("annotation:study_detail", study_id=study.pk)


@login_required
@require_POST
def stop_labeling(request: HtmxHttpRequest, study_id: int):
    """The lead stops labeling the independent round blind, to see everything; their labels are set aside."""
    study = get_study_for(request, study_id, is_lead)
    expected = parse_id(request.POST.get("expected_round"))
    if request.POST.get("confirm") != "yes" or expected is None:
        messages.error(request, _("Tick the box to confirm: your labels of this round will be set aside."))
        return redirect("annotation:study_detail", study_id=study.pk)
    try:
        stop_labeling_blind(request.user, study, expected)
    except LabelError as exc:
        messages.error(request, exc.message)
    else:
        messages.success(request, _("You stopped labeling this round and see everything now; your labels of it "
                                    "are set aside from agreement and final labels."))
    return redirect("annotation:study_detail", study_id=study.pk)


SELECTION_FIELDS = ("sources", "keywords", "verdict", "created_from", "created_to", "saved_list")


def _selection_valid(form) -> bool:
    return all(name in form.cleaned_data and name not in form.errors for name in SELECTION_FIELDS) \
        and NON_FIELD_ERRORS not in form.errors


def _selection(data: dict) -> Selection:
    return Selection(sources=list(data["sources"]), keywords=list(data["keywords"]), verdict=data["verdict"],
                     created_from=data["created_from"], created_to=data["created_to"],
                     saved_list=data["saved_list"])


@staff_member_required
@require_http_methods(["GET", "POST"])
def study_new(request: HtmxHttpRequest):
    """Set-up by an admin; the lead named here takes it from there (members, invitations, phases)."""
    form = StudySetupForm(request.POST or None, initial={"seed": secrets.randbelow(1_000_000), "lead": request.user})
    count = None
    preview = bool(request.POST.get("preview"))
    valid = request.method == "POST" and form.is_valid()
    if request.method == "POST" and preview and not valid and _selection_valid(form):
        # Counting asks about the selection only: a name or a lead not chosen yet is for "Create study" to say.
        for name in [n for n in form.errors if n not in SELECTION_FIELDS]:
            del form.errors[name]
        valid = not form.errors
    if valid:
        data = form.cleaned_data
        try:
            issues = select_reports(_selection(data))
            count = issues.count()
            if count == 0:
                raise SelectionError("", _("No stored report matches these rules; widen them or check the sources."))
            if not preview:
                with transaction.atomic():
                    study = _create(request, data, issues)
                messages.success(request, ngettext("Study %(study)s created with %(n)s report.",
                                                   "Study %(study)s created with %(n)s reports.", count)
                                 % {"study": study.name, "n": count})
                return redirect("annotation:study_detail", study_id=study.pk)
        except (SelectionError, StudyError) as exc:
            exc.add_to(form)
    return render(request, "annotation/study_new.html", {"form": form, "count": count},
                  status=400 if form.errors else 200)


def _create(request, data: dict, issues):
    if Study.objects.filter(name=data["name"]).exists():
        raise StudyError("name", _("a study named %(name)s exists already") % {"name": repr(data["name"])})
    codebook = copy_codebook(data["codebook"], version=f"{data['codebook'].version} for {data['name']}")
    return create_study(
        name=data["name"], description=data["description"], codebook=codebook, issues=issues,
        lead=data["lead"], annotators=data["annotators"], overlap=data["overlap"],
        pilot_fraction=data["pilot_percent"] / 100, seed=data["seed"], with_pilot=data["with_pilot"],
        created_by=request.user, lead_labels_blind=data["lead_labels_blind"],
        queue_order=data["queue_order"] or Study.QueueOrder.OLDEST,
    )


@login_required
@require_GET
def study_export_csv(request: HtmxHttpRequest, study_id: int):
    study = get_study_for(request, study_id, can_export)
    audit("export", request.user, study, what="labels csv")
    return csv_response(label_csv_rows(study), f"{slugify(study.name)}-labels.csv")


@login_required
@require_http_methods(["GET", "POST"])
def study_settings(request: HtmxHttpRequest, study_id: int):
    study = get_study_for(request, study_id, can_manage)
    initial = {"name": study.name, "description": study.description, "overlap": study.overlap,
               "pilot_percent": round(study.pilot_fraction * 100, 4), "seed": study.seed,
               "lead_labels_blind": study.lead_labels_blind, "summary_experiment": study.summary_experiment,
               "queue_order": study.queue_order, "tree_sibling": study.tree_sibling,
               "tree_same_type": study.tree_same_type}
    form = StudySettingsForm(request.POST or None, initial=initial)
    if study.queue_order == Study.QueueOrder.CONFIDENCE:
        # Set on the machine raters' page; offered here so that saving the form keeps it.
        form.fields["queue_order"].choices += [
            ("confidence", _("What a machine is least sure of first (%(machine)s)")
             % {"machine": study.queue_order_from or _("a machine")})]
    if request.method == "POST" and form.is_valid():
        data = form.cleaned_data
        try:
            update_settings(study, request.user, name=data["name"], description=data["description"],
                            overlap=data["overlap"], pilot_fraction=data["pilot_percent"] / 100, seed=data["seed"],
                            lead_labels_blind=data["lead_labels_blind"],
                            summary_experiment=data["summary_experiment"],
                            queue_order=data["queue_order"] or None,
                            tree_distance=(
                                study.tree_sibling if data["tree_sibling"] is None else data["tree_sibling"],
                                study.tree_same_type if data["tree_same_type"] is None else data["tree_same_type"]))
        except StudyError as exc:
            exc.add_to(form)
        else:
            messages.success(request, _("The study's set-up is saved."))
            return redirect("annotation:study_detail", study_id=study.pk)
    return render(request, "annotation/study_settings.html", {"study": study, "form": form},
                  status=400 if form.errors else 200)


@login_required
@require_POST
def study_sso(request: HtmxHttpRequest, study_id: int):
    """An admin requires members to sign in through a provider to open the study, or no longer does. The form
    names the state it showed, so a double click changes it once."""
    study = get_study_for(request, study_id, can_manage)
    if not request.user.is_staff:
        raise PermissionDenied(_("Only an admin decides how a study's members sign in."))
    shown = request.POST.get("expected")
    if shown not in ("on", "off"):
        messages.error(request, _("The form did not say which setting it showed; nothing was changed."))
    elif Study.objects.filter(pk=study.pk, sso_required=shown == "on").update(sso_required=shown != "on"):
        audit("single sign-on required" if shown == "off" else "single sign-on no longer required", request.user,
              study)
    else:
        messages.info(request, _("Someone changed this already; nothing was changed."))
    return redirect("annotation:study_settings", study_id=study.pk)
