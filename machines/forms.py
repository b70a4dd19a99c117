from __future__ import annotations

from django import forms
from django.utils.translation import gettext_lazy as _

from integrations.endpoints import operator_endpoints
from stats.alt_test import EPSILONS

from .classifier import DEFAULT_FEATURES, FEATURES
from .measures import LEVELS
from .models import MachineRater

EPSILON_CHOICES = [(str(v), f"{v} ({who} annotators)") for who, v in EPSILONS.items()]


# What each of the built-in model's readings reads, as the form offers it.
FEATURE_NAMES = {"words-1-2": _("single words and pairs of words"),
                 "words-1": _("single words"),
                 "opening": _("words and pairs of the title and the first lines only")}

class RaterForm(forms.Form):
    """Limits here are the model's; the service checks them again (it is also called by the command)."""

    name = forms.CharField(max_length=100, label=_("Name"))
    kind = forms.ChoiceField(choices=MachineRater.Kind.choices, label=_("Kind"))
    training = forms.ChoiceField(choices=MachineRater.Training.choices, initial=MachineRater.Training.FINAL,
                                 required=False, label=_("Training"),
                                 help_text=_("Built-in model: what it learns from"))
    folds = forms.IntegerField(min_value=2, max_value=20, required=False, label=_("Folds"),
                               help_text=_("Built-in model (default 5)"))
    features = forms.ChoiceField(choices=[(name, FEATURE_NAMES.get(name, name)) for name in FEATURES],
                                 initial=DEFAULT_FEATURES,
                                 required=False, label=_("Features"),
                                 help_text=_("Built-in model: what it reads (members of a jury differ in this and "
                                             "in their seed)"))
    endpoint = forms.ChoiceField(required=False, label=_("Endpoint"),
                                 help_text=_("Language model: one of the server's endpoints, which carry the "
                                             "server's keys"))
    base_url = forms.CharField(max_length=500, required=False, label=_("Or an endpoint of its own"),
                               help_text=_("Language model: an OpenAI-compatible address this server may call "
                                           "(public addresses only, unless the operator allows more)"))
    api_key = forms.CharField(max_length=500, required=False, label=_("Its own endpoint's key"),
                              widget=forms.PasswordInput(render_value=False),
                              help_text=_("Sent to that address only; never shown again, exported or backed up"))
    model = forms.CharField(max_length=200, required=False, label=_("Model"),
                            help_text=_("Language model: its name at the endpoint"))
    temperature = forms.FloatField(min_value=0, max_value=2, required=False, label=_("Temperature"))
    seed = forms.IntegerField(min_value=0, max_value=2**32 - 1, required=False, label=_("Seed"))
    runs = forms.IntegerField(min_value=1, max_value=10, required=False, label=_("Runs"),
                              help_text=_("Language model: runs per report, to measure its agreement with itself"))

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["endpoint"].choices = [("", _("— none: the address below —"))] + [
            (name, name) for name in operator_endpoints()]


class DecisionForm(forms.Form):
    level = forms.ChoiceField(choices=[(lv, lv.replace("_", "-")) for lv in LEVELS])
    type_code = forms.CharField(max_length=32, required=False)
    epsilon = forms.ChoiceField(choices=EPSILON_CHOICES)
    sentinel_share = forms.FloatField(min_value=0.01, max_value=1, initial=0.1,
                                      help_text="The share of reports people keep labeling, to watch the machine")
    reason = forms.CharField(widget=forms.Textarea(attrs={"rows": 3}), max_length=5000)
    expected_run = forms.IntegerField(widget=forms.HiddenInput, min_value=0, max_value=2**63 - 1)


class WithdrawForm(forms.Form):
    reason = forms.CharField(widget=forms.Textarea(attrs={"rows": 2}), max_length=5000)
