"""A study's webhooks: the lead adds an address and the events it hears, switches one off or on, and sends a
dead message again."""
from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.db import transaction
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_POST

from annotation.access import get_study_for
from annotation.permissions import can_manage
from concord import form_tokens
from concord.http import HtmxHttpRequest

from . import services as webhooks
from .forms import WebhookForm
from .models import Webhook, WebhookDelivery


def _context(study, **extra) -> dict:
    hooks = list(study.webhooks.all())
    recent = WebhookDelivery.objects.filter(webhook__study=study).select_related("webhook")
    return {"study": study, "hooks": hooks, "form": WebhookForm(), "recent": recent[:20],
            "dead": recent.filter(dead_at__isnull=False)[:100], **extra}


@login_required
@require_GET
def webhook_list(request: HtmxHttpRequest, study_id: int):
    study = get_study_for(request, study_id, can_manage)
    return render(request, "webhooks/webhooks.html", _context(study))


@login_required
@require_POST
def webhook_add(request: HtmxHttpRequest, study_id: int):
    study = get_study_for(request, study_id, can_manage)
    form = WebhookForm(request.POST)
    if form.is_valid():
        try:
            with transaction.atomic():
                # An address names no state to expect: the form's one-time token makes a double click add one.
                form_tokens.claim(request.POST.get(form_tokens.FIELD))
                hook = webhooks.add(study, form.cleaned_data["url"], form.cleaned_data["events"], request.user)
        except form_tokens.AlreadySent as exc:
            messages.error(request, str(exc))
            return redirect("webhooks:list", study_id=study.pk)
        except webhooks.WebhookError as exc:
            form.add_error(exc.field if exc.field in form.fields else None, str(exc))
        else:
            messages.success(request, _("Messages to %(url)s will be signed with the secret shown beside it.")
                             % {"url": hook.url})
            return redirect("webhooks:list", study_id=study.pk)
    return render(request, "webhooks/webhooks.html", _context(study, form=form), status=400)


@login_required
@require_POST
def webhook_switch(request: HtmxHttpRequest, study_id: int, webhook_id: int):
    """Switch a webhook off or on; the form says which it was shown as, so a double click switches it once."""
    study = get_study_for(request, study_id, can_manage)
    hook = get_object_or_404(Webhook, pk=webhook_id, study=study)
    shown = request.POST.get("expected")
    if shown not in ("on", "off"):
        messages.error(request, _("The form did not say whether the webhook was on or off; nothing was changed."))
    elif not webhooks.switch(hook, shown == "on", request.user):
        messages.info(request, _("The webhook was switched already; nothing was changed."))
    return redirect("webhooks:list", study_id=study.pk)


@login_required
@require_POST
def webhook_again(request: HtmxHttpRequest, study_id: int, delivery_id: int):
    study = get_study_for(request, study_id, can_manage)
    delivery = get_object_or_404(WebhookDelivery, pk=delivery_id, webhook__study=study)
    if webhooks.send_again(delivery, request.user):
        messages.success(request, _("The message will be sent again within a minute."))
    else:
        messages.info(request, _("The message is not dead (sent already, or being tried); nothing was changed."))
    return redirect("webhooks:list", study_id=study.pk)
