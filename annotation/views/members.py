"""Members of a study: who is in it, adding people, and one-time invitation links for volunteers."""
from __future__ import annotations

from django.contrib import messages
from django.contrib.auth import get_user_model, login
from django.contrib.auth.decorators import login_required
from django.contrib.auth.forms import UserCreationForm
from django.db import IntegrityError, transaction
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.utils.translation import ngettext
from django.views.decorators.http import require_http_methods, require_POST

from concord import form_tokens
from concord.http import HtmxHttpRequest

from ..access import get_study_for
from ..forms import InvitationForm, MemberForm
from ..models import Invitation, Queue
from ..permissions import can_manage
from ..selectors.phases import open_round
from ..services.invitations import InvitationError, accept, invite, revoke, usable
from ..services.studies import StudyError, add_member, deactivate, remove_member
from ..signin import INVITATION_SESSION_KEY


def _members_context(study, **extra) -> dict:
    round = open_round(study)
    queues = {q.annotator_id: q for q in Queue.objects.filter(round=round)} if round else {}
    members = [(m, queues.get(m.user_id)) for m in study.memberships.select_related("user").order_by("role",
                                                                                                     "user__username")]
    return {"study": study, "round": round, "members": members,
            "invitations": study.invitations.select_related("accepted_by"),
            "member_form": MemberForm(), "invitation_form": InvitationForm(), **extra}


@login_required
@require_http_methods(["GET", "POST"])
def members(request: HtmxHttpRequest, study_id: int):
    study = get_study_for(request, study_id, can_manage)
    form = MemberForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        user = get_user_model().objects.filter(username=form.cleaned_data["username"], is_active=True).first()
        if user is None:
            form.add_error("username", _("No active user named %(name)s; send an invitation link instead.")
                           % {"name": repr(form.cleaned_data["username"])})
        else:
            add_member(study, user, form.cleaned_data["role"])
            messages.success(request, _("%(user)s is a member of %(study)s.")
                             % {"user": user.username, "study": study.name})
            return redirect("annotation:members", study_id=study.pk)
    return render(request, "annotation/members.html", _members_context(study, member_form=form),
                  status=400 if form.errors else 200)


@login_required
@require_POST
def invitation_create(request: HtmxHttpRequest, study_id: int):
    study = get_study_for(request, study_id, can_manage)
    form = InvitationForm(request.POST)
    if not form.is_valid():
        return render(request, "annotation/members.html", _members_context(study, invitation_form=form), status=400)
    try:
        with transaction.atomic():
            # A link names no state to expect: the form's one-time token makes a double click make one link.
            form_tokens.claim(request.POST.get(form_tokens.FIELD))
            invitation, token = invite(study, request.user, form.cleaned_data["role"], form.cleaned_data["days"],
                                       form.cleaned_data["note"])
    except form_tokens.AlreadySent as exc:
        messages.error(request, str(exc))
        return redirect("annotation:members", study_id=study.pk)
    link = request.build_absolute_uri(reverse("join", args=[token]))
    # The link is shown once: only its hash is stored.
    return render(request, "annotation/members.html", _members_context(study, new_link=link,
                                                                        new_invitation=invitation))


@login_required
@require_POST
def member_remove(request: HtmxHttpRequest, study_id: int, user_id: int):
    study = get_study_for(request, study_id, can_manage)
    name = get_user_model().objects.filter(pk=user_id).values_list("username", flat=True).first() or "?"
    try:
        left = remove_member(study, request.user, user_id)
    except StudyError as exc:
        messages.error(request, _("Nothing changed: %(why)s.") % {"why": exc.message})
    else:
        messages.success(request, ngettext(
            "%(user)s is no longer a member of %(study)s. Their labels stay; %(n)s report left their queue.",
            "%(user)s is no longer a member of %(study)s. Their labels stay; %(n)s reports left their queue.", left)
            % {"user": name, "study": study.name, "n": left})
    return redirect("annotation:members", study_id=study.pk)


@login_required
@require_POST
def member_deactivate(request: HtmxHttpRequest, study_id: int, user_id: int):
    study = get_study_for(request, study_id, can_manage)
    user = get_object_or_404(get_user_model(), pk=user_id, memberships__study=study)
    if not user.is_active:
        messages.info(request, _("%(user)s's account was deactivated already.") % {"user": user.username})
        return redirect("annotation:members", study_id=study.pk)
    try:
        deactivate(request.user, user)
    except StudyError as exc:
        messages.error(request, _("Nothing changed: %(why)s.") % {"why": exc.message})
    else:
        messages.success(request, _("%(user)s can no longer log in. What they did stays.") % {"user": user.username})
    return redirect("annotation:members", study_id=study.pk)


@login_required
@require_POST
def invitation_revoke(request: HtmxHttpRequest, study_id: int, invitation_id: int):
    study = get_study_for(request, study_id, can_manage)
    revoke(get_object_or_404(Invitation, pk=invitation_id, study=study), request.user)
    messages.success(request, _("The invitation was withdrawn; its link no longer works."))
    return redirect("annotation:members", study_id=study.pk)


@require_http_methods(["GET", "POST"])
def join(request: HtmxHttpRequest, token: str):
    """Open to anyone holding the link: a new volunteer chooses a username and password; someone logged in
    joins with their account."""
    try:
        invitation = usable(token)
    except InvitationError as exc:
        return render(request, "annotation/join.html", {"error": str(exc)}, status=410)
    study = invitation.study
    if request.user.is_authenticated and study.memberships.filter(user=request.user).exists():
        # Opening a link meant for someone else while logged in must not use it up.
        messages.info(request, _("You are a member of %(study)s already; the link stays unused.")
                      % {"study": study.name})
        return redirect("annotation:study_detail", study_id=study.pk)
    form = None if request.user.is_authenticated else UserCreationForm(request.POST or None)
    if form is not None:
        # Signing in through a provider instead of choosing a password may make the account: it reads this.
        request.session[INVITATION_SESSION_KEY] = token
    if request.method == "POST":
        try:
            if form is None:
                user = accept(token, user=request.user)
            elif form.is_valid():
                user = accept(token, username=form.cleaned_data["username"],
                              password=form.cleaned_data["password1"])
                login(request, user, backend="concord.auth.UserRowBackend")
            else:
                user = None
        except InvitationError as exc:
            return render(request, "annotation/join.html", {"error": str(exc)}, status=410)
        except IntegrityError:
            form.add_error("username", _("That username is taken; choose another."))
            user = None
        if user is not None:
            request.session.pop(INVITATION_SESSION_KEY, None)
            messages.success(request, _("Welcome to %(study)s.") % {"study": invitation.study.name})
            return redirect("annotation:study_detail", study_id=invitation.study.pk)
    return render(request, "annotation/join.html", {"invitation": invitation, "form": form},
                  status=400 if form is not None and form.errors else 200)
