"""The forms of the study's findings: which comparison to show, a baseline to draw, a subset to define."""
from __future__ import annotations

from django import forms
from django.core.exceptions import ValidationError

from ingest.models import Keyword

from .comparison import LEVELS, RULES


class ComparisonForm(forms.Form):
    """Which comparison a page, its CSV or the card shows: subsets by a rule, at a level. A value it does not
    know falls back to the default, as a link with a stale parameter should."""

    by = forms.CharField(required=False)
    level = forms.CharField(required=False)

    def clean_by(self) -> str:
        return self.cleaned_data["by"] if self.cleaned_data["by"] in RULES else "source"

    def clean_level(self) -> str:
        return self.cleaned_data["level"] if self.cleaned_data["level"] in LEVELS else "theme"


_KEYWORD_GROUPS = [("", "any"), *Keyword.Origin.choices]


# A subset's name and seed are checked against their columns by the service (findings.subsets), in the
# words every other form uses for a value too long or out of range.
class BaselineForm(forms.Form):
    name = forms.CharField(required=False)
    keyword_group = forms.ChoiceField(required=False, choices=_KEYWORD_GROUPS)
    size = forms.IntegerField(min_value=1, error_messages={"min_value": "draw at least one report"})
    seed = forms.IntegerField(required=False)


class SubsetForm(forms.Form):
    """A subset's rules (combined with "and") or a saved list; the service says when nothing matches."""

    name = forms.CharField(error_messages={"required": "give the subset a name"})
    sources = forms.MultipleChoiceField(required=False)
    years = forms.CharField(required=False, max_length=200)
    type = forms.CharField(required=False, max_length=32)
    keyword = forms.CharField(required=False, max_length=200)
    keyword_group = forms.ChoiceField(required=False, choices=_KEYWORD_GROUPS)
    verdict = forms.ChoiceField(required=False, choices=[("", "any"), ("included", "included"),
                                                         ("excluded", "excluded"), ("undecided", "undecided")])
    saved_list = forms.CharField(required=False, max_length=200_000)

    def __init__(self, *args, sources: list[str], **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["sources"].choices = [(name, name) for name in sources]

    def clean_years(self) -> list[int]:
        years = []
        for word in self.cleaned_data["years"].replace(",", " ").split():
            if not (word.isascii() and word.isdigit() and 1900 <= int(word) <= 2100):
                raise ValidationError(f"{word[:20]!r} is not a year")
            years.append(int(word))
        return years
