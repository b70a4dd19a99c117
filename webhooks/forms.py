from __future__ import annotations

from django import forms
from django.utils.translation import gettext_lazy as _

from annotation.events import EVENTS


class WebhookForm(forms.Form):
    url = forms.URLField(max_length=500, assume_scheme="https", label=_("Address that receives the messages"))
    events = forms.MultipleChoiceField(
        required=False, widget=forms.CheckboxSelectMultiple, label=_("Events (none ticked: every event)"),
        choices=[(e, e) for e in EVENTS])
