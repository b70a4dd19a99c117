"""A change made from a pair of categories people confused: both definitions side by side, the reason written
from the pair's figures, and the pair kept in the change log as the change's evidence."""
from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.shortcuts import redirect, render
from django.views.decorators.http import require_http_methods

from agreement.pairs import AskedPair, asked_pair
from agreement.selectors import latest, pair_evidence
from annotation.access import get_study_for
from annotation.permissions import can_manage_seeing_labels
from annotation.selectors.studies import agreement_round
from concord.errors import FieldError
from concord.http import HtmxHttpRequest
from concord.numbers import interval, number
from taxonomy.models import Category
from taxonomy.services import CodebookError

from ..forms import ClarifyPairForm
from ..selectors import report_ids
from ..services import changes


def _reason(asked: AskedPair, first: Category, second: Category, evidence: dict) -> str:
    """The reason a clarification starts from: the pair, its figures and the reports behind it, in words."""
    words = [f"People confused {first.code} {first.name} and {second.code} {second.name} at "
             f"{asked.at.replace('_', '-')} level"]
    if figures := evidence["figures"]:
        alpha = "undefined" if figures["alpha"] is None else number(figures["alpha"])
        if figures["alpha"] is not None and figures["ci"][0] is not None:
            alpha += " " + interval(*figures["ci"])
        words.append(f": {figures['reports']} reports given both ({number(figures['share'], 1, percent=True)} of "
                     "the reports with two "
                     f"or more labels), alpha between the two {alpha} (n {figures['alpha_n']}), in the figures "
                     f"of {evidence['computed_at'][:16].replace('T', ' ')} on {evidence['labels']} labels")
    if evidence["examples"]:
        words.append(". For example " + ", ".join(e["ref"] for e in evidence["examples"]))
    return "".join(words) + "."


@login_required
@require_http_methods(["GET", "POST"])
def clarify_pair(request: HtmxHttpRequest, study_id: int):
    study = get_study_for(request, study_id, can_manage_seeing_labels)
    try:
        asked = asked_pair(study, request.GET)
    except FieldError as exc:
        return render(request, "codebook/clarify_pair.html", {"study": study, "refusal": str(exc)}, status=400)
    snapshot = latest(request.user, study, asked.level)
    live = {c.code: c for c in Category.objects.filter(codebook=study.codebook_id, retired_at__isnull=True,
                                                       code__in=[asked.first, asked.second])}
    if snapshot is None or len(live) != 2:
        refusal = ("no agreement figures yet: the dashboard computes them" if snapshot is None else
                   "only two current categories of the codebook are clarified together")
        return render(request, "codebook/clarify_pair.html", {"study": study, "refusal": refusal}, status=400)
    first, second = live[asked.first], live[asked.second]
    evidence = pair_evidence(request.user, study, agreement_round(study), snapshot, asked.at, asked.first, asked.second)
    ids = report_ids(study, [x["ref"] for x in evidence["examples"]])
    shown = {"revision": study.codebook.revision, "snapshot": snapshot.pk}
    form = ClarifyPairForm(request.POST or None, initial={
        **shown, "reason": _reason(asked, first, second, evidence),
        **{f"{side}_{part}": getattr(category, part) for side, category in (("first", first), ("second", second))
           for part in ("definition", "inclusion", "exclusion")}})
    if request.method == "POST" and form.is_valid():
        form, done = _clarify(request, study, form, snapshot, (first, second), evidence, shown)
        if done:
            return redirect("codebook:changelog", study_id=study.pk)
    return render(request, "codebook/clarify_pair.html", {
        "study": study, "asked": asked, "form": form, "evidence": evidence, "first": first, "second": second,
        "snapshot": snapshot, "examples": [(x, ids.get(x["ref"])) for x in evidence["examples"]]},
        status=400 if form.errors else 200)


def _clarify(request: HtmxHttpRequest, study, form: ClarifyPairForm, snapshot, pair, evidence: dict, shown: dict):
    """Save the clarification if the page showed the figures and revision that are current; the form to show
    (again, with what the page is now, when refused) and whether it was saved."""
    first, second = pair
    data = form.cleaned_data
    try:
        if data["snapshot"] != snapshot.pk:
            raise CodebookError("snapshot", "the agreement figures were recomputed since this page was shown; "
                                "nothing was changed. The page shows the new ones: look at them, then save.")
        changes.clarify_pair(study, request.user, first.pk, second.pk, data["reason"], first=form.texts("first"),
                             second=form.texts("second"), evidence=evidence, expected_revision=data["revision"])
    except CodebookError as exc:
        # Shown again with what the page is now, so that a deliberate second save is not refused again.
        again = request.POST.copy()
        for name, value in shown.items():
            again[name] = str(value)
        form = ClarifyPairForm(again)
        form.is_valid()
        exc.add_to(form)
        return form, False
    messages.success(request, f"Clarified {first.code} and {second.code}; the change log keeps the pair as the "
                              "evidence.")
    return form, True
