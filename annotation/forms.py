from __future__ import annotations

from django import forms
from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError
from django.utils.translation import gettext_lazy as _

from concord.ids import parse_id
from concord.textcheck import INT64_MAX
from ingest.models import Keyword, Source
from taxonomy.models import Codebook

from .services.labels import LabelInput
from .services.review import COMMENT_MAX_CHARS

NOT_RELEVANT_CHOICE = "NR"


class IdsField(forms.ModelMultipleChoiceField):
    """Chosen ids that are not whole numbers of 1 to 18 digits are refused before any query: SQLite cannot even
    bind an integer past 64 bits (OverflowError), where PostgreSQL answers that nothing matches."""

    def _check_values(self, value):
        for pk in value:
            if parse_id(str(pk)) is None:
                raise ValidationError(self.error_messages["invalid_pk_value"], code="invalid_pk_value",
                                      params={"pk": str(pk)[:40]})
        return super()._check_values(value)


class LabelForm(forms.Form):
    """The labeling form. Codebook rules (theme under type, …) are checked by the service, not here."""

    type = forms.CharField(error_messages={"required": _("Choose a type, or mark the report not relevant.")})
    theme = forms.IntegerField(required=False, min_value=1, max_value=INT64_MAX)
    sub_theme = forms.IntegerField(required=False, min_value=1, max_value=INT64_MAX)
    note = forms.CharField(required=False, max_length=5000, widget=forms.Textarea)
    # The stored label's version the page showed ("" for none); a form without it is an older page's.
    version = forms.CharField(required=False, max_length=64, strip=False)

    def clean_type(self) -> str:
        value = self.cleaned_data["type"]
        if value != NOT_RELEVANT_CHOICE and parse_id(value) is None:
            raise forms.ValidationError(_("Unknown type."))
        return value

    def to_input(self) -> LabelInput:
        data = self.cleaned_data
        version = data["version"] if "version" in self.data else None
        if data["type"] == NOT_RELEVANT_CHOICE:
            return LabelInput(is_relevant=False, note=data["note"], version=version)
        return LabelInput(type_id=int(data["type"]), theme_id=data["theme"], sub_theme_id=data["sub_theme"],
                          note=data["note"], version=version)


SKIP_REASONS = [
    _("Needs knowledge I do not have"),
    _("The report is unclear"),
    _("Not enough information in the report"),
    _("Coming back to it later"),
]


class SkipForm(forms.Form):
    reason = forms.CharField(max_length=300, error_messages={"required": _("Say why you skip this report.")})


class CommentForm(forms.Form):
    body = forms.CharField(max_length=COMMENT_MAX_CHARS, widget=forms.Textarea,
                           error_messages={"required": _("Write something before posting.")})


class StudySetupForm(forms.Form):
    """A new study: its reports (by rules or a saved list), its people, and how the labeling is spread."""

    name = forms.CharField(max_length=200, label=_("Name"))
    description = forms.CharField(required=False, widget=forms.Textarea(attrs={"rows": 2}), label=_("Description"))
    codebook = forms.ModelChoiceField(queryset=None, label=_("Codebook"),
                                      help_text=_("The study gets its own copy, which its pilot may grow."))
    # Long lists: the page turns them into searchable pickers (a click chooses, no Ctrl needed).
    sources = IdsField(queryset=None, required=False, label=_("Sources"), help_text=_("None chosen: every source."),
                       widget=forms.SelectMultiple(attrs={"data-picker": ""}))
    keywords = IdsField(queryset=None, required=False, label=_("Keywords"),
                        help_text=_("Reports that matched any of these keywords."),
                        widget=forms.SelectMultiple(attrs={"data-picker": ""}))
    verdict = forms.ChoiceField(required=False, label=_("Screening verdict"), choices=[
        ("", _("Any screening verdict")), ("included", _("Screened in")), ("excluded", _("Screened out")),
        ("undecided", _("Not decided yet"))])
    created_from = forms.DateField(required=False, label=_("Opened from"),
                                   widget=forms.DateInput(attrs={"type": "date"}))
    created_to = forms.DateField(required=False, label=_("Opened until"),
                                 widget=forms.DateInput(attrs={"type": "date"}))
    saved_list = forms.CharField(required=False, widget=forms.Textarea(attrs={"rows": 3}), label=_("Saved list"),
                                 help_text=_("One report per line, owner/repo#123 or its URL; replaces the rules "
                                             "above."))
    lead = forms.ModelChoiceField(queryset=None, label=_("Lead annotator"))
    annotators = IdsField(queryset=None, required=False, label=_("Annotators"),
                          help_text=_("More can join later through invitation links."),
                          widget=forms.SelectMultiple(attrs={"data-picker": ""}))
    overlap = forms.IntegerField(required=False, min_value=1, max_value=50, label=_("Annotators per report"),
                                 help_text=_("Empty: every annotator labels every report. k: k annotators per "
                                             "report."))
    with_pilot = forms.BooleanField(required=False, initial=True, label=_("Start with the lead's pilot"))
    pilot_percent = forms.FloatField(min_value=0, max_value=100, initial=18, label=_("Pilot sample (%)"))
    seed = forms.IntegerField(min_value=0, max_value=INT64_MAX, label=_("Seed"),
                              help_text=_("The same seed draws the same pilot sample and spread."))
    queue_order = forms.ChoiceField(
        required=False, choices=[("oldest", _("Oldest report first")), ("random", _("Seeded random order"))],
        initial="oldest",
        label=_("Order of the queues"),
        help_text=_("In the seeded random order, the reports labeled by any moment are a random sample: estimates "
                    "that combine people's labels with a machine's need one. Fixed once the independent round "
                    "begins; the machine raters' page can order them by a machine's doubt."))
    lead_labels_blind = forms.BooleanField(
        required=False, initial=True, label=_("The lead labels blind"),
        help_text=_("While the lead's own queue of the independent round is unfinished, the lead sees what an "
                    "annotator sees: no one else's labels, counts, agreement, history or exports."))

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        users = get_user_model().objects.filter(is_active=True).order_by("username")
        self.fields["codebook"].queryset = Codebook.objects.order_by("name", "version")
        self.fields["sources"].queryset = Source.objects.order_by("full_name")
        self.fields["keywords"].queryset = Keyword.objects.filter(status=Keyword.Status.ACCEPTED).select_related(
            "keyword_list").order_by("keyword_list__name", "term")
        # Shown grouped by their list (PyTorch, TensorFlow, …): the same term in two lists is two choices.
        groups: dict[str, list] = {}
        for keyword in self.fields["keywords"].queryset:
            groups.setdefault(keyword.keyword_list.name, []).append((keyword.pk, keyword.term))
        self.fields["keywords"].choices = list(groups.items())
        self.fields["lead"].queryset = users
        self.fields["annotators"].queryset = users

    def clean(self):
        data = super().clean()
        start, end = data.get("created_from"), data.get("created_to")
        if start and end and start > end:
            self.add_error("created_to", _("The end date is before the start date."))
        return data


class MemberForm(forms.Form):
    username = forms.CharField(label=_("Username"), max_length=150)
    role = forms.ChoiceField(label=_("Role"), choices=[("annotator", _("Annotator")), ("lead", _("Lead annotator"))])


class InvitationForm(forms.Form):
    role = forms.ChoiceField(label=_("Role"), choices=[("annotator", _("Annotator")), ("lead", _("Lead annotator"))])
    days = forms.IntegerField(min_value=1, max_value=90, initial=14, label=_("Valid for (days)"))
    note = forms.CharField(max_length=200, required=False, label=_("For whom (a reminder, optional)"))


class StudySettingsForm(forms.Form):
    name = forms.CharField(max_length=200, label=_("Name"))
    description = forms.CharField(required=False, widget=forms.Textarea(attrs={"rows": 2}), label=_("Description"))
    overlap = forms.IntegerField(required=False, min_value=1, max_value=50, label=_("Annotators per report"),
                                 help_text=_("Empty: every annotator labels every report. Fixed once the "
                                             "independent round begins."))
    pilot_percent = forms.FloatField(min_value=0, max_value=100, label=_("Pilot sample (%)"),
                                     help_text=_("With the seed, fixed once the pilot's first label is saved."))
    seed = forms.IntegerField(min_value=0, max_value=INT64_MAX, label=_("Seed"))
    lead_labels_blind = forms.BooleanField(
        required=False, label=_("The lead labels blind"),
        help_text=_("While the lead's own queue of the independent round is unfinished, the lead sees what an "
                    "annotator sees. Fixed once the independent round begins."))
    queue_order = forms.ChoiceField(
        required=False, choices=[("oldest", _("Oldest report first")), ("random", _("Seeded random order"))],
        label=_("Order of the queues"),
        help_text=_("In the seeded random order, the reports labeled by any moment are a random sample: estimates "
                    "that combine people's labels with a machine's need one. Fixed once the independent round "
                    "begins; the machine raters' page can order them by a machine's doubt."))
    tree_sibling = forms.FloatField(
        required=False, min_value=0, max_value=1, label=_("Tree distance: sibling sub-themes"),
        help_text=_("What two labels that part at the sub-theme count as, a share of a disagreement, in alpha with "
                    "the codebook's tree distance (1/3 by default; empty keeps it as it is)."))
    tree_same_type = forms.FloatField(
        required=False, min_value=0, max_value=1, label=_("Tree distance: themes of the same type"),
        help_text=_("What two labels that part at the theme count as (2/3 by default); at the type, a whole one. "
                    "No less than the sibling distance."))
    summary_experiment = forms.BooleanField(
        required=False, label=_("Measure whether the summary anchors labels"),
        help_text=_("Each annotator sees the summary on a seeded half of their reports only, and the summary "
                    "experiment page compares the two halves. Fixed once the independent round begins."))
