from __future__ import annotations

from django import forms

from .importers import FORMATS
from .models import Source
from .services.sources import validate_full_name


class SourceForm(forms.ModelForm):
    class Meta:
        model = Source
        fields = ["platform", "full_name", "display_name", "kind", "keyword_list", "created_from", "created_to"]
        widgets = {
            "created_from": forms.DateInput(attrs={"type": "date"}),
            "created_to": forms.DateInput(attrs={"type": "date"}),
        }
        labels = {"full_name": "Owner/name"}

    def clean_full_name(self) -> str:
        try:
            return validate_full_name(self.cleaned_data["full_name"])
        except ValueError as exc:
            raise forms.ValidationError(str(exc)) from exc

    def clean(self):
        data = super().clean()
        start, end = data.get("created_from"), data.get("created_to")
        if start and end and start > end:
            self.add_error("created_to", "The window ends before it starts.")
        if data.get("kind") == Source.Kind.FRAMEWORK and not data.get("keyword_list"):
            self.add_error("keyword_list", "A framework source keeps only keyword matches: choose a keyword list.")
        return data


class UploadForm(forms.Form):
    file = forms.FileField(help_text="GitHub API JSON, gh issue list --json output, JSON Lines or CSV")
    format = forms.ChoiceField(choices=[("", "Detect from the file"), *[(f, f) for f in FORMATS]], required=False)
