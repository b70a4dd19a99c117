"""The codebook of a study: its tree with definitions, proposals and votes, the lead's changes, the log."""
from __future__ import annotations

import re

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.db.models import Count
from django.http import Http404, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.http import url_has_allowed_host_and_scheme
from django.utils.text import slugify
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from annotation.access import get_study_for
from annotation.models import Label
from annotation.permissions import can_label, can_manage, can_view_all_labels
from annotation.selectors import current_round
from concord.csv_stream import csv_response
from concord.http import HtmxHttpRequest
from concord.ids import parse_id
from interviews.selectors import quote_of
from taxonomy.exports import to_json, to_markdown, to_qdc
from taxonomy.models import Category
from taxonomy.selectors import codebook_tree
from taxonomy.services import CodebookError

from .forms import CategoryForm, ChangeForm, ProposalForm, VoteForm
from .models import Proposal
from .services import changes
from .services.details import add_detail, details_rows, notes_for, remove_detail
from .services.proposals import ProposalError, Tally, awaiting, cast_vote, lapse, open_proposal, tally, with_tally

_REPORT = re.compile(r"(?:/issues/|#)?([A-Za-z0-9]+)\s*$")


def _label_counts(study) -> dict[int, int]:
    """Labels per category in the current round, each counted at every level it names (lead only)."""
    round = current_round(study)
    if round is None:
        return {}
    counts: dict[int, int] = {}
    labels = Label.objects.filter(round=round).order_by()
    for field in ("type_id", "theme_id", "sub_theme_id"):
        for pk, n in labels.exclude(**{field: None}).values_list(field).annotate(n=Count("pk")):
            counts[pk] = counts.get(pk, 0) + n
    return counts


def _tree(study, query: str, with_retired: bool) -> list[Category]:
    types = codebook_tree(study.taxonomy, with_retired=with_retired,
                          nodes=Category.objects.filter(taxonomy=study.taxonomy).prefetch_related("examples__source"))
    if not query:
        return types
    q = query.lower()

    def keep(node) -> bool:
        """Whether the node or anything below it matches; prunes the children that do not."""
        node.hit = q in f"{node.code} {node.name} {node.definition} {node.inclusion} {node.exclusion}".lower()
        node.kids = [k for k in node.kids if keep(k)]
        # A hit is shown where it sits in the tree: its ancestors stay.
        return node.hit or bool(node.kids)

    return [t for t in types if keep(t)]


@login_required
@require_GET
def codebook(request: HtmxHttpRequest, study_id: int):
    study = get_study_for(request, study_id)
    query = request.GET.get("q", "").strip()
    context = {
        "study": study, "query": query, "with_retired": bool(request.GET.get("retired")),
        "types": _tree(study, query, bool(request.GET.get("retired"))),
        "counts": _label_counts(study) if can_view_all_labels(request.user, study) else None,
        "manages": can_manage(request.user, study), "change_form": ChangeForm(),
        "quote": quote_of(study, request.GET.get("quote", "")),
        "open_proposals": study.proposals.filter(status=Proposal.Status.OPEN).count(),
    }
    return render(request, "codebook/codebook.html", context)


@login_required
@require_POST
def change(request: HtmxHttpRequest, study_id: int, category_id: int):
    study = get_study_for(request, study_id, can_manage)
    form = ChangeForm(request.POST)
    if not form.is_valid():
        messages.error(request, " ".join(e for errors in form.errors.values() for e in errors))
        return redirect("codebook:codebook", study_id=study.pk)
    data, reason = form.cleaned_data, form.cleaned_data["reason"]
    quote = quote_of(study, request.POST.get("quote", ""))
    expected = {"quote": quote, "expected_revision": data["revision"]}
    try:
        if data["kind"] == "rename":
            changes.rename(study, request.user, category_id, data["name"], reason, **expected)
        elif data["kind"] == "clarify":
            changes.clarify(study, request.user, category_id, reason, definition=data["definition"],
                            inclusion=data["inclusion"], exclusion=data["exclusion"], **expected)
        elif data["kind"] == "split":
            parts = [tuple(p.strip() for p in (line.split(":", 1) + [""])[:2])
                     for line in data["parts"].splitlines() if line.strip()]
            changes.split(study, request.user, category_id, parts, reason, **expected)
        elif data["kind"] == "merge":
            codes = [c.strip() for c in data["others"].split(",") if c.strip()]
            others = list(study.taxonomy.categories.filter(code__in=codes).values_list("pk", flat=True))
            if len(others) != len(codes):
                raise CodebookError("others: some of those codes are not in this codebook")
            changes.merge(study, request.user, [category_id, *others], data["name"], data["definition"], reason,
                          **expected)
        else:
            changes.retire(study, request.user, category_id, reason, **expected)
    except CodebookError as exc:
        messages.error(request, str(exc))
    else:
        messages.success(request, "The codebook changed; the change log has the new revision.")
    return redirect("codebook:codebook", study_id=study.pk)


@login_required
@require_GET
def changelog(request: HtmxHttpRequest, study_id: int):
    study = get_study_for(request, study_id)
    entries = study.taxonomy.changes.select_related("made_by", "proposal", "quote__session__participant").order_by(
        "revision")
    interviews = request.GET.get("evidence") == "interviews"
    if interviews:
        # The study's Table 2: modifications from interview results.
        entries = entries.filter(quote__isnull=False) | entries.filter(proposal__quote__isnull=False)
    # How many labels a change sent back counts other people's labels of a category: the blind rule applies.
    return render(request, "codebook/changelog.html", {"study": study, "entries": entries, "interviews": interviews,
                                                       "sees_labels": can_view_all_labels(request.user, study)})


def _examples(study, text: str) -> list[int]:
    wanted = [m.group(1) for part in re.split(r"[,\n]", text) if (m := _REPORT.search(part.strip()))]
    return list(study.issues.filter(number__in=wanted).values_list("pk", flat=True))


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
                                         definition=data["definition"], example_ids=_examples(study, data["examples"]),
                                         quote=quote_of(study, request.POST.get("quote", "")))
            except ProposalError as exc:
                field, _, message = str(exc).partition(": ")
                form.add_error(field if field in form.fields else None, message)
            else:
                messages.success(request, "Proposal opened; every member is asked to vote.")
                return redirect("codebook:proposal", study_id=study.pk, proposal_id=proposal.pk)
    parents = Category.objects.filter(taxonomy=study.taxonomy, retired_at__isnull=True).exclude(
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
                messages.success(request, "Your vote is recorded.")
            elif action == "apply":
                revision = parse_id(request.POST.get("revision"))
                if revision is None:
                    raise CodebookError("revision: the form did not say which codebook revision it was shown "
                                        "for; reload the page")
                changes.apply_proposal(item, request.user, request.POST.get("reason", ""), revision)
                messages.success(request, "Added to the codebook.")
            elif action == "lapse":
                lapse(item, request.user, request.POST.get("reason", ""))
                messages.success(request, "The proposal lapsed.")
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





EXPORTS = {
    "json": ("application/json", "json"),
    "md": ("text/markdown; charset=utf-8", "md"),
    "qdc": ("application/xml", "qdc"),
}


@login_required
@require_GET
def export(request: HtmxHttpRequest, study_id: int, fmt: str):
    study = get_study_for(request, study_id)
    if fmt not in EXPORTS:
        raise Http404("No such format.")
    body = {"json": to_json, "md": to_markdown, "qdc": to_qdc}[fmt](study.taxonomy)
    content_type, extension = EXPORTS[fmt]
    response = HttpResponse(body, content_type=content_type)
    name = f"{slugify(study.name)}-codebook-r{study.taxonomy.revision}.{extension}"
    response["Content-Disposition"] = f'attachment; filename="{name}"'
    return response


@login_required
@require_http_methods(["GET", "POST"])
def details(request: HtmxHttpRequest, study_id: int, category_id: int):
    """The notes annotators wrote with labels of this category, and the lead's curated short list."""
    study = get_study_for(request, study_id)
    category = get_object_or_404(Category, pk=category_id, taxonomy=study.taxonomy)
    # Curated details come from annotators' notes and name the reports that carried them: the blind rule applies
    # to reading them, and curating needs the notes in view.
    sees_labels = can_view_all_labels(request.user, study)
    manages = can_manage(request.user, study) and sees_labels
    if request.method == "POST":
        if not manages:
            raise PermissionDenied
        try:
            if request.POST.get("remove"):
                detail_id = parse_id(request.POST["remove"])
                if detail_id is None:
                    raise CodebookError(f"remove: {request.POST['remove'][:40]!r} is not a detail's id")
                remove_detail(study, request.user, detail_id)
            else:
                add_detail(study, request.user, category, request.POST.get("text", ""),
                           _examples(study, request.POST.get("examples", "")))
        except CodebookError as exc:
            messages.error(request, str(exc))
        return redirect("codebook:details", study_id=study.pk, category_id=category.pk)
    context = {
        "study": study, "category": category, "manages": manages,
        "curated": category.details.prefetch_related("examples__source") if sees_labels else None,
        # Others' notes reveal their labels: only for those the blind rule lets see labels.
        "notes": notes_for(study, category) if sees_labels else None,
    }
    return render(request, "codebook/details.html", context)


@login_required
@require_GET
def details_csv(request: HtmxHttpRequest, study_id: int):
    study = get_study_for(request, study_id, can_view_all_labels)
    return csv_response(details_rows(study.taxonomy), f"{slugify(study.name)}-explanatory-details.csv")


@login_required
@require_POST
def pilot_category_add(request: HtmxHttpRequest, study_id: int):
    """During the pilot the lead shapes the codebook freely while labeling (paper §4.2, DESIGN step 6)."""
    study = get_study_for(request, study_id)
    form = CategoryForm(request.POST)
    back = request.POST.get("next") or ""
    if not form.is_valid():
        messages.error(request, " ".join(e for errors in form.errors.values() for e in errors))
    else:
        try:
            category = changes.add_in_pilot(study, request.user, form.cleaned_data["parent"], form.cleaned_data["name"],
                                    form.cleaned_data["definition"], expected_revision=form.cleaned_data["revision"])
        except CodebookError as exc:
            messages.error(request, str(exc))
        else:
            messages.success(request, f"Added {category.code} {category.name} to the codebook.")
    if url_has_allowed_host_and_scheme(back, allowed_hosts={request.get_host()}, require_https=request.is_secure()):
        return redirect(back)
    return redirect("annotation:queue", study_id=study.pk)
