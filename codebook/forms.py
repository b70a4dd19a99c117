from __future__ import annotations

import re

from django import forms
from django.conf import settings
from django.utils.translation import gettext_lazy as _

from concord.errors import FieldError
from concord.textcheck import INT64_MAX

# A number (GitHub's digits, Gitee's letters and digits), "#number", "owner/repo#number" (the form every other
# field takes), or an issue's URL.
_REPORT = re.compile(r"(?:\S*?/(?P<url_repo>[\w.-]+/[\w.-]+)/issues/|(?P<repo>[\w.-]+/[\w.-]+)#|#)?"
                     r"(?P<number>[A-Za-z0-9]+)/?")


def report_numbers(text: str, field: str = "examples") -> list[str]:
    """The reports a field names, as numbers, #numbers, owner/repo#numbers or issue URLs, one per line or
    comma-separated: "123", or "owner/repo#123" where the repository is named. FieldError naming the line of
    anything else (a pasted list must not lose a report without a word)."""
    refs = []
    for line_number, line in enumerate(text.splitlines(), 1):
        for part in filter(None, (p.strip() for p in line.split(","))):
            if not (m := _REPORT.fullmatch(part)):
                raise FieldError(field, f"line {line_number}: {part[:80]!r} is not a report number, #number, "
                                        "owner/repo#number or issue URL")
            repo = m.group("url_repo") or m.group("repo")
            refs.append(f"{repo}#{m.group('number')}" if repo else m.group("number"))
    return refs


class ProposalForm(forms.Form):
    parent = forms.IntegerField(widget=forms.Select)
    name = forms.CharField(label=_("Name"), max_length=300)
    definition = forms.CharField(label=_("Definition"), widget=forms.Textarea(attrs={"rows": 3}))
    examples = forms.CharField(label=_("Examples"), widget=forms.Textarea(attrs={"rows": 3}), max_length=20_000,
                               help_text=_("Report numbers or URLs of this study, one per line or comma-separated"))

    def clean_examples(self) -> list[str]:
        try:
            return report_numbers(self.cleaned_data["examples"])
        except FieldError as exc:
            raise forms.ValidationError(exc.message) from exc


class VoteForm(forms.Form):
    choice = forms.ChoiceField(choices=[("yes", _("Yes")), ("no", _("No"))], widget=forms.RadioSelect)
    comment = forms.CharField(required=False, widget=forms.Textarea(attrs={"rows": 2}))


class ChangeForm(forms.Form):
    """The lead's change to one category; which fields matter depends on the kind."""

    kind = forms.ChoiceField(label=_("Kind"), choices=[
        ("rename", _("Rename")), ("clarify", _("Clarify definition")), ("split", _("Split")),
        ("merge", _("Merge with…")), ("retire", _("Retire")), ("translate", _("Second language"))])
    name = forms.CharField(label=_("Name"), required=False, max_length=300)
    definition = forms.CharField(label=_("Definition"), required=False, widget=forms.Textarea(attrs={"rows": 2}))
    inclusion = forms.CharField(label=_("Includes"), required=False, widget=forms.Textarea(attrs={"rows": 2}))
    exclusion = forms.CharField(label=_("Excludes"), required=False, widget=forms.Textarea(attrs={"rows": 2}))
    parts = forms.CharField(label=_("Parts"), required=False, widget=forms.Textarea(attrs={"rows": 3}),
                            help_text=_("Split: one new category per line, as “name: definition”"))
    others = forms.CharField(label=_("Others"), required=False,
                             help_text=_("Merge: codes of the siblings to merge with, comma-separated"))
    # Second language: the codebook's second language and this category's texts in it.
    second_language = forms.ChoiceField(label=_("Second language"), required=False,
                                        choices=[("", "—"), *settings.LANGUAGES])
    name_second = forms.CharField(label=_("Name in the second language"), required=False, max_length=300)
    definition_second = forms.CharField(label=_("Definition in the second language"), required=False,
                                        widget=forms.Textarea(attrs={"rows": 2}))
    inclusion_second = forms.CharField(label=_("Includes, in the second language"), required=False,
                                       widget=forms.Textarea(attrs={"rows": 2}))
    exclusion_second = forms.CharField(label=_("Excludes, in the second language"), required=False,
                                       widget=forms.Textarea(attrs={"rows": 2}))
    reason = forms.CharField(label=_("Reason"), widget=forms.Textarea(attrs={"rows": 2}),
                             error_messages={"required": _("Every change to the codebook needs a reason.")})
    # The codebook revision the page was shown at: a change made meanwhile (or a second click) refuses this one.
    revision = forms.IntegerField(min_value=0, widget=forms.HiddenInput, error_messages={
        "required": _("The form did not say which codebook revision it was shown for; reload the page.")})

    def clean_parts(self) -> list[tuple[str, str]]:
        """A split's new categories, one per line as "name: definition" (the definition may be left out)."""
        return [tuple(p.strip() for p in (line.split(":", 1) + [""])[:2])
                for line in self.cleaned_data["parts"].splitlines() if line.strip()]

    def clean_others(self) -> list[str]:
        """A merge's other categories, by code."""
        return [c.strip() for c in self.cleaned_data["others"].split(",") if c.strip()]


class CategoryForm(forms.Form):
    """A category the lead adds during the pilot, from the labeling page."""


    parent = forms.IntegerField()
    name = forms.CharField(label=_("Name"), max_length=300)
    definition = forms.CharField(label=_("Definition"), required=False, widget=forms.Textarea(attrs={"rows": 2}))
    # The codebook revision the page was shown at: a change made meanwhile (or a second click) refuses this one.
    revision = forms.IntegerField(min_value=0, widget=forms.HiddenInput, error_messages={
        "required": _("The form did not say which codebook revision it was shown for; reload the page.")})


class InstructionsForm(forms.Form):
    instructions = forms.CharField(label=_("Instructions"), required=False, widget=forms.Textarea(attrs={"rows": 14}),
                                   help_text=_("Markdown. Annotators see them on their first visit and with the "
                                               "key i; a change opens them again for everyone."))
    reason = forms.CharField(label=_("Reason"), widget=forms.Textarea(attrs={"rows": 2}), max_length=5000,
                             error_messages={"required": _("Say why: every change to the codebook needs a reason.")})
    revision = forms.IntegerField(min_value=1, max_value=2**31 - 1, widget=forms.HiddenInput)


class DetailForm(forms.Form):
    """The lead's curated detail of a category, with the reports it came from; or, with `remove`, the id of one
    to take away."""

    remove = forms.IntegerField(required=False, min_value=1, max_value=INT64_MAX, widget=forms.HiddenInput,
                                error_messages={"invalid": "that is not a detail's id"})
    text = forms.CharField(required=False, max_length=5000, widget=forms.Textarea(attrs={"rows": 2}))
    examples = forms.CharField(required=False, max_length=20_000, widget=forms.Textarea(attrs={"rows": 2}))

    def clean_examples(self) -> list[str]:
        try:
            return report_numbers(self.cleaned_data["examples"])
        except FieldError as exc:
            raise forms.ValidationError(exc.message) from exc


class ClarifyPairForm(forms.Form):
    """Both definitions of a pair people confused, changed at once, with the pair as the evidence. The pair and
    the figures come from the query and the database, never from these fields."""

    first_definition = forms.CharField(required=False, max_length=20_000, widget=forms.Textarea(attrs={"rows": 4}))
    first_inclusion = forms.CharField(required=False, max_length=20_000, widget=forms.Textarea(attrs={"rows": 2}))
    first_exclusion = forms.CharField(required=False, max_length=20_000, widget=forms.Textarea(attrs={"rows": 2}))
    second_definition = forms.CharField(required=False, max_length=20_000, widget=forms.Textarea(attrs={"rows": 4}))
    second_inclusion = forms.CharField(required=False, max_length=20_000, widget=forms.Textarea(attrs={"rows": 2}))
    second_exclusion = forms.CharField(required=False, max_length=20_000, widget=forms.Textarea(attrs={"rows": 2}))
    reason = forms.CharField(max_length=5000, widget=forms.Textarea(attrs={"rows": 4}),
                             error_messages={"required": _("Every change to the codebook needs a reason.")})
    # The codebook revision and the agreement figures the page was shown with: a change or a recomputation
    # meanwhile (or a second click) refuses this one, so the evidence kept is the evidence shown.
    revision = forms.IntegerField(min_value=0, max_value=2**31 - 1, widget=forms.HiddenInput, error_messages={
        "required": _("The form did not say which codebook revision it was shown for; reload the page.")})
    snapshot = forms.IntegerField(min_value=1, max_value=INT64_MAX, widget=forms.HiddenInput, error_messages={
        "required": _("The form did not say which agreement figures it was shown with; reload the page.")})

    def texts(self, side: str) -> dict[str, str]:
        return {part: self.cleaned_data[f"{side}_{part}"] for part in ("definition", "inclusion", "exclusion")}


class SecondLanguageFileForm(forms.Form):
    """The codebook's second language as one file (taxonomy.second_file), with the change's reason."""
    file = forms.FileField(label=_("File (CSV, as downloaded)"))
    reason = forms.CharField(label=_("Reason"), max_length=5000,
                             error_messages={"required": _("Say why: every change to the codebook needs a reason.")})
    revision = forms.IntegerField(min_value=1, max_value=2**31 - 1, widget=forms.HiddenInput)
