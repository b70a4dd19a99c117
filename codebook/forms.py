from __future__ import annotations

from django import forms


class ProposalForm(forms.Form):
    parent = forms.IntegerField(widget=forms.Select)
    name = forms.CharField(max_length=300)
    definition = forms.CharField(widget=forms.Textarea(attrs={"rows": 3}))
    examples = forms.CharField(help_text="Report numbers or URLs of this study, one per line or comma-separated")


class VoteForm(forms.Form):
    choice = forms.ChoiceField(choices=[("yes", "Yes"), ("no", "No")], widget=forms.RadioSelect)
    comment = forms.CharField(required=False, widget=forms.Textarea(attrs={"rows": 2}))


class ChangeForm(forms.Form):
    """The lead's change to one category; which fields matter depends on the kind."""

    kind = forms.ChoiceField(choices=[("rename", "Rename"), ("clarify", "Clarify definition"), ("split", "Split"),
                                      ("merge", "Merge with…"), ("retire", "Retire")])
    name = forms.CharField(required=False, max_length=300)
    definition = forms.CharField(required=False, widget=forms.Textarea(attrs={"rows": 2}))
    inclusion = forms.CharField(required=False, widget=forms.Textarea(attrs={"rows": 2}))
    exclusion = forms.CharField(required=False, widget=forms.Textarea(attrs={"rows": 2}))
    parts = forms.CharField(required=False, widget=forms.Textarea(attrs={"rows": 3}),
                            help_text="Split: one new category per line, as “name: definition”")
    others = forms.CharField(required=False, help_text="Merge: codes of the siblings to merge with, comma-separated")
    reason = forms.CharField(widget=forms.Textarea(attrs={"rows": 2}),
                             error_messages={"required": "Every change to the codebook needs a reason."})
    # The codebook revision the page was shown at: a change made meanwhile (or a second click) refuses this one.
    revision = forms.IntegerField(min_value=0, widget=forms.HiddenInput, error_messages={
        "required": "The form did not say which codebook revision it was shown for; reload the page."})


class CategoryForm(forms.Form):
    """A category the lead adds during the pilot, from the labeling page."""


    parent = forms.IntegerField()
    name = forms.CharField(max_length=300)
    definition = forms.CharField(required=False, widget=forms.Textarea(attrs={"rows": 2}))
    # The codebook revision the page was shown at: a change made meanwhile (or a second click) refuses this one.
    revision = forms.IntegerField(min_value=0, widget=forms.HiddenInput, error_messages={
        "required": "The form did not say which codebook revision it was shown for; reload the page."})
