"""Proposals of new categories and every member's vote (a category is added only when all vote yes)."""
from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_http_methods

from annotation.access import get_study_for
from annotation.permissions import can_label, can_manage
from concord.errors import FieldError
from concord.http import HtmxHttpRequest
from concord.ids import parse_id
from interviews.selectors import quote_of
from taxonomy.models import Category
from taxonomy.services import CodebookError

from ..forms import ProposalForm, VoteForm
from ..models import Proposal
from ..selectors import Tally, awaiting, reports_numbered, tally, with_tally
from ..services import changes
from ..services.proposals import ProposalError, cast_vote, lapse, open_proposal


@login_required
@require_http_methods(["GET", "POST"])
def proposals(request: HtmxHttpRequest, study_id: int):
    study = get_study_for(request, study_id)
    form = ProposalForm(request.POST or None)
    if request.method == "POST":
        if not can_label(request.user, study):
            raise PermissionDenied
        if form.is_valid():
            data = form.cleaned_data
            try:
                proposal = open_proposal(study, request.user, parent_id=data["parent"], name=data["name"],
                                         definition=data["definition"],
                                         example_ids=reports_numbered(study, data["examples"]),
                                         quote=quote_of(study, request.POST.get("quote", "")))
            except (ProposalError, FieldError) as exc:
                exc.add_to(form)
            else:
                messages.success(request, _("Proposal opened; every member is asked to vote."))
                return redirect("codebook:proposal", study_id=study.pk, proposal_id=proposal.pk)
    parents = Category.objects.filter(codebook=study.codebook, retired_at__isnull=True).exclude(
        level=Category.Level.SUB_THEME).order_by("position")
    rows = [(p, Tally(p.yes, p.no, p.pending))
            for p in with_tally(study.proposals.select_related("parent", "proposer"))]
    quote = quote_of(study, request.GET.get("quote", "") or request.POST.get("quote", ""))
    return render(request, "codebook/proposals.html", {"study": study, "form": form, "parents": parents,
                                                       "rows": rows, "can_propose": can_label(request.user, study),
                                                       "quote": quote},
                  status=400 if form.errors else 200)


@login_required
@require_http_methods(["GET", "POST"])
def proposal(request: HtmxHttpRequest, study_id: int, proposal_id: int):
    study = get_study_for(request, study_id)
    item = get_object_or_404(Proposal.objects.select_related("parent", "proposer", "category"), pk=proposal_id,
                             study=study)
    form = VoteForm(request.POST or None)
    if request.method == "POST":
        action = request.POST.get("action", "vote")
        try:
            if action == "vote" and form.is_valid():
                cast_vote(item, request.user, form.cleaned_data["choice"] == "yes", form.cleaned_data["comment"])
                messages.success(request, _("Your vote is recorded."))
            elif action == "apply":
                revision = parse_id(request.POST.get("revision"))
                if revision is None:
                    raise CodebookError("revision", "the form did not say which codebook revision it was shown "
                                        "for; reload the page")
                changes.apply_proposal(item, request.user, request.POST.get("reason", ""), revision)
                messages.success(request, _("Added to the codebook."))
            elif action == "lapse":
                lapse(item, request.user, request.POST.get("reason", ""))
                messages.success(request, _("The proposal lapsed."))
        except (ProposalError, CodebookError) as exc:
            messages.error(request, str(exc))
        return redirect("codebook:proposal", study_id=study.pk, proposal_id=item.pk)
    mine = item.votes.filter(voter=request.user).first()
    context = {
        "study": study, "proposal": item, "tally": tally(item), "mine": mine, "form": form,
        "manages": can_manage(request.user, study), "examples": item.examples.select_related("source"),
        # Who voted what stays hidden while the vote runs; the tally is enough to know where it stands.
        "ballots": item.votes.select_related("voter") if not item.is_open else None,
    }
    return render(request, "codebook/proposal.html", context)


@login_required
@require_GET
def my_votes(request: HtmxHttpRequest):
    waiting = awaiting(request.user).select_related("study", "parent", "proposer").order_by("opened_at")
    return render(request, "codebook/my_votes.html", {"waiting": waiting})
