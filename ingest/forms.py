from __future__ import annotations

from django import forms
from django.contrib.auth import get_user_model
from django.utils.translation import gettext_lazy as _

from .importers import FORMATS
from .models import Keyword, Source
from .services.sources import validate_full_name


class SourceForm(forms.ModelForm):
    class Meta:
        model = Source
        fields = ["platform", "full_name", "display_name", "kind", "keyword_list", "created_from", "created_to"]
        widgets = {
            "created_from": forms.DateInput(attrs={"type": "date"}),
            "created_to": forms.DateInput(attrs={"type": "date"}),
        }
        labels = {"platform": _("Platform"), "full_name": _("Owner/name"), "display_name": _("Display name"),
                  "kind": _("Kind"), "keyword_list": _("Keyword list"), "created_from": _("Issues created from"),
                  "created_to": _("Issues created until")}

    def clean_full_name(self) -> str:
        try:
            return validate_full_name(self.cleaned_data["full_name"])
        except ValueError as exc:
            raise forms.ValidationError(str(exc)) from exc

    def clean(self):
        data = super().clean()
        start, end = data.get("created_from"), data.get("created_to")
        if start and end and start > end:
            self.add_error("created_to", _("The window ends before it starts."))
        if data.get("kind") == Source.Kind.FRAMEWORK and not data.get("keyword_list"):
            self.add_error("keyword_list", _("A framework source keeps only keyword matches: choose a keyword list."))
        return data


class UploadForm(forms.Form):
    file = forms.FileField(label=_("File"),
                           help_text=_("GitHub API JSON, gh issue list --json output, JSON Lines or CSV"))
    format = forms.ChoiceField(choices=[("", _("Detect from the file")), *[(f, f) for f in FORMATS]], required=False,
                               label=_("Format"))


def _screeners():
    return get_user_model().objects.filter(is_active=True).order_by("username")


class _ReviewersForm(forms.Form):
    reviewer_a = forms.ModelChoiceField(queryset=_screeners(), label=_("First screener"))
    reviewer_b = forms.ModelChoiceField(queryset=_screeners(), label=_("Second screener"))
    tiebreaker = forms.ModelChoiceField(queryset=_screeners(), label=_("Tie-breaker"))
    seed = forms.IntegerField(label=_("Seed"), initial=416, help_text=_("The same seed draws the same sample"))

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        for name in ("reviewer_a", "reviewer_b", "tiebreaker"):
            self.fields[name].queryset = _screeners()

    def clean(self):
        data = super().clean()
        people = [data.get("reviewer_a"), data.get("reviewer_b"), data.get("tiebreaker")]
        if all(people) and len(set(people)) < 3:
            raise forms.ValidationError(_("The two screeners and the tie-breaker must be three different people."))
        return data


class KeywordSampleForm(_ReviewersForm):
    keyword = forms.ModelChoiceField(label=_("Keyword"), queryset=Keyword.objects.select_related("keyword_list"))
    size = forms.IntegerField(label=_("Size"), initial=100, min_value=1)
    threshold = forms.FloatField(label=_("Threshold"), initial=0.8, min_value=0, max_value=1,
                                 help_text=_("Lowest precision to accept"))


class StratumSampleForm(_ReviewersForm):
    source = forms.ModelChoiceField(label=_("Source"), queryset=Source.objects.all())
    relevant_rate = forms.FloatField(initial=0.10, min_value=0, max_value=1, label=_("Share of “relevant” checked"))
    unclear_rate = forms.FloatField(initial=1.0, min_value=0, max_value=1, label=_("Share of “unclear” checked"))
    not_relevant_rate = forms.FloatField(initial=0.05, min_value=0, max_value=1,
                                         label=_("Share of “not relevant” checked"))
