"""Stage II pages of a study, for its lead: participants and the imports of interview files, one interview
(rankings, answers, coded quotes), the guide and its versions, and the aggregated results."""
from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.text import slugify
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from annotation.access import get_study_for
from annotation.permissions import can_manage
from concord.csv_stream import csv_lines, csv_response
from concord.errors import FieldError, form_refusal
from concord.http import HtmxHttpRequest
from concord.uploads import upload_on_disk

from .exports import RESULT_COLUMNS, results_rows
from .forms import GuideForm, ImportForm, ParticipantForm, QuoteForm, SessionForm
from .models import GuideQuestion, Participant
from .selectors import participants_of, ranking_items, results
from .services import (
    InterviewError,
    add_participant,
    add_quote,
    default_guide,
    import_interviewees,
    import_quotes,
    revise_guide,
    save_answer,
    save_ranking,
    session_for,
)


@login_required
@require_http_methods(["GET", "POST"])
def interviews(request: HtmxHttpRequest, study_id: int):
    """Participants, their quotes, and the imports of the study's interview files."""
    study = get_study_for(request, study_id, can_manage)
    report, error = None, ""
    if request.method == "POST":
        form = ImportForm(request.POST, request.FILES)
        if not form.is_valid():
            error = form_refusal(form).message
        else:
            importer = import_quotes if form.cleaned_data["kind"] == "quotes" else import_interviewees
            with upload_on_disk(form.cleaned_data["file"]) as path:
                try:
                    report = importer(study, path)
                except InterviewError as exc:
                    error = str(exc)
    return render(request, "interviews/interviews.html", {"study": study, "participants": participants_of(study),
                                                          "report": report, "error": error},
                  status=400 if error else 200)


@login_required
@require_http_methods(["GET", "POST"])
def participant(request: HtmxHttpRequest, study_id: int, participant_id: int):
    """One interview: the guide's rankings and the participant's coded quotes."""
    study = get_study_for(request, study_id, can_manage)
    person = get_object_or_404(Participant, pk=participant_id, study=study)
    guide = default_guide(study)
    session = session_for(person, guide, request.user)
    asked = [q for q in (session.guide or guide).questions.select_related("node")
             if not q.group or q.group == person.group]
    questions = [q for q in asked if q.kind == "ranking"]
    if request.method == "POST":
        try:
            _save_session(request, session, questions, [q for q in asked if q.kind != "ranking"])
            messages.success(request, "Saved.")
            return redirect("interviews:participant", study_id=study.pk, participant_id=person.pk)
        except (InterviewError, FieldError) as exc:
            messages.error(request, str(exc))
    return render(request, "interviews/participant.html", {
        "study": study, "person": person, "session": session, **_answered(session, asked),
        "quotes": session.quotes.prefetch_related("nodes"),
    })


def _answered(session, asked: list) -> dict:
    """Each ranking question with its items, the order given so far and the places to fill; each other
    question with the answer given so far."""
    answers = {a.question_id: a for a in session.answers.all()}
    rankings = [(q, ranking_items(q), answers[q.pk].order if q.pk in answers else [],
                 range(q.top or len(ranking_items(q)))) for q in asked if q.kind == "ranking"]
    texts = [(q, answers[q.pk].text if q.pk in answers else "") for q in asked if q.kind != "ranking"]
    return {"rankings": rankings, "texts": texts}


def _save_session(request: HtmxHttpRequest, session, rankings, others) -> None:
    """A coded quote (`action=quote`), or the interview's rankings and answers."""
    if request.POST.get("action") == "quote":
        form = QuoteForm(request.POST)
        if not form.is_valid():
            raise form_refusal(form)
        data = form.cleaned_data
        add_quote(session, data["text"], data["codes"], data["insight"], data["prompt"])
        return
    form = SessionForm(request.POST, rankings=rankings, others=others)
    if not form.is_valid():
        raise form_refusal(form)
    for question, order in form.orders():
        if order:
            save_ranking(session, question, order)
    for question, text in form.answers():
        save_answer(session, question, text)


@login_required
@require_POST
def participant_add(request: HtmxHttpRequest, study_id: int):
    study = get_study_for(request, study_id, can_manage)
    form = ParticipantForm(request.POST)
    try:
        if not form.is_valid():
            raise form_refusal(form)
        add_participant(study, **form.cleaned_data)
    except (InterviewError, FieldError) as exc:
        messages.error(request, str(exc))
    return redirect("interviews:interviews", study_id=study.pk)


@login_required
@require_GET
def interview_results(request: HtmxHttpRequest, study_id: int):
    study = get_study_for(request, study_id, can_manage)
    data = results(study)
    charts = [(r, [(f"{item}", g.borda.get(item, 0) / max(max(g.borda.values(), default=1), 1))
                   for item in r.items]) for r in data for g in r.groups if g.group == "all"]
    return render(request, "interviews/interview_results.html", {"study": study, "results": data, "charts": charts})


@login_required
@require_GET
def interview_results_csv(request: HtmxHttpRequest, study_id: int):
    study = get_study_for(request, study_id, can_manage)
    return csv_response(csv_lines(RESULT_COLUMNS, results_rows(study)), f"{slugify(study.name)}-interviews.csv")


@login_required
@require_http_methods(["GET", "POST"])
def guide(request: HtmxHttpRequest, study_id: int):
    """The interview guide: parts and questions; every change makes a new version."""
    study = get_study_for(request, study_id, can_manage)
    if request.method == "POST":
        form = GuideForm(request.POST)
        try:
            if not form.is_valid():
                raise form_refusal(form)
            data = form.cleaned_data
            if data["remove"]:
                revise_guide(study, remove=data["remove"])
            else:
                revise_guide(study, add={k: data[k] for k in ("part", "text", "kind", "node", "top", "group")})
            messages.success(request, "The guide has a new version; earlier sessions keep theirs.")
        except (InterviewError, FieldError, ValueError) as exc:
            messages.error(request, str(exc))
        return redirect("interviews:guide", study_id=study.pk)
    current = default_guide(study)
    return render(request, "interviews/guide.html", {"study": study, "guide": current,
                                                     "questions": current.questions.select_related("node"),
                                                     "kinds": GuideQuestion.Kind.choices,
                                                     "versions": study.guides.count()})
