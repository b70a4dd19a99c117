"""The interview pages' forms. What a value must be beyond its type (a code the codebook has, a name that fits
its column, a participant not yet added) the services check and name."""
from __future__ import annotations

from django import forms
from django.core.exceptions import ValidationError

from concord.textcheck import INT64_MAX

from .tables import split_codes


def _text() -> forms.CharField:
    return forms.CharField(required=False, strip=False)


class ImportForm(forms.Form):
    """An interview file: the interviewees' table or the coded quotes."""

    file = forms.FileField(error_messages={"required": "Choose a .csv or .xlsx file."})
    kind = forms.ChoiceField(required=False, choices=[("interviewees", "Interviewees"), ("quotes", "Quotes")])

    def clean_file(self):
        upload = self.cleaned_data["file"]
        if not upload.name.lower().endswith((".csv", ".xlsx")):
            raise ValidationError("Choose a .csv or .xlsx file.")
        return upload


class QuoteForm(forms.Form):
    text, insight, prompt = _text(), _text(), _text()
    codes = _text()

    def clean_codes(self) -> list[str]:
        return split_codes(self.cleaned_data["codes"])


class SessionForm(forms.Form):
    """One interview's answers: for each ranking question the themes in the order placed (`rank-<id>`, a place
    left empty skipped), for each other question its text (`answer-<id>`, only those sent are saved)."""

    def __init__(self, *args, rankings, others, **kwargs):
        super().__init__(*args, **kwargs)
        for question in rankings:
            self.fields[f"rank-{question.pk}"] = forms.MultipleChoiceField(required=False)
            # The service names a theme the question does not rank; any text is a choice here.
            self.fields[f"rank-{question.pk}"].valid_value = lambda value: True
        for question in others:
            self.fields[f"answer-{question.pk}"] = _text()
        self.rankings, self.others = rankings, others

    def orders(self):
        for question in self.rankings:
            yield question, [c for c in self.cleaned_data[f"rank-{question.pk}"] if c]

    def answers(self):
        for question in self.others:
            if f"answer-{question.pk}" in self.data:
                yield question, self.cleaned_data[f"answer-{question.pk}"]


class ParticipantForm(forms.Form):
    code, group, role, years, frameworks, tasks = _text(), _text(), _text(), _text(), _text(), _text()


class GuideForm(forms.Form):
    """A question added to the guide, or (`remove`) one taken out; either makes a new version."""

    remove = forms.IntegerField(required=False, min_value=1, max_value=INT64_MAX,
                                error_messages={"invalid": "that is not a question's id"})
    part, text, kind, node, top, group = _text(), _text(), _text(), _text(), _text(), _text()
