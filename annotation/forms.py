from __future__ import annotations

from django import forms

from .services.labels import LabelInput

NOT_RELEVANT_CHOICE = "NR"


class LabelForm(forms.Form):
    """The labeling form. Codebook rules (theme under type, …) are checked by the service, not here."""

    type = forms.CharField(error_messages={"required": "Choose a type, or mark the report not relevant."})
    theme = forms.IntegerField(required=False)
    sub_theme = forms.IntegerField(required=False)
    note = forms.CharField(required=False, max_length=5000, widget=forms.Textarea)

    def clean_type(self) -> str:
        value = self.cleaned_data["type"]
        if value != NOT_RELEVANT_CHOICE and not value.isdigit():
            raise forms.ValidationError("Unknown type.")
        return value

    def to_input(self) -> LabelInput:
        data = self.cleaned_data
        if data["type"] == NOT_RELEVANT_CHOICE:
            return LabelInput(is_relevant=False, note=data["note"])
        return LabelInput(
            type_id=int(data["type"]), theme_id=data["theme"], sub_theme_id=data["sub_theme"], note=data["note"]
        )
