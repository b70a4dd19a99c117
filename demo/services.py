"""Demo data for `make run`: the default codebook, 300 real vLLM reports, users and three studies."""
from __future__ import annotations

import csv
import random
import secrets
from pathlib import Path

from django.contrib.auth import get_user_model
from django.db import transaction
from simple_history.utils import bulk_create_with_history

from annotation.models import Label, Membership, Study
from annotation.services.phases import advance
from annotation.services.studies import create_study
from ingest.models import Source
from ingest.services.files import import_file
from ingest.services.keywords import load_shipped_lists
from ingest.services.sources import get_or_create_source
from taxonomy.models import Category
from taxonomy.services import copy_codebook, load_codebook

DEMO_DIR = Path(__file__).resolve().parent / "data"
DEMO_ISSUES = DEMO_DIR / "vllm-issues.jsonl"
PAPER_LABELS = DEMO_DIR / "vllm-paper-labels.csv"
DEMO_USERS = ["lead", "ann1", "ann2", "ann3"]
LABELING_STUDY = "vLLM demo"
PUBLISHED_STUDY = "vLLM demo: the study's seven annotators"
SIMULATED_STUDY = "vLLM demo: four simulated annotators, with ties"
SIMULATED_REPORTS = 120
# Each simulated annotator keeps the study's final label of a report this often; otherwise they pick another
# theme (of the same type, mostly), or call the report not relevant now and then. With four of them some
# reports split two against two: ties for the review and the lead's decisions.
KEEP, SAME_TYPE, NOT_RELEVANT_SHARE = 0.7, 0.7, 0.05


def _make_users() -> dict[str, str]:
    """Create the demo users that do not exist yet; return the new ones' passwords (only shown once)."""
    User = get_user_model()
    passwords = {}
    for name in DEMO_USERS:
        if not User.objects.filter(username=name).exists():
            passwords[name] = secrets.token_urlsafe(9)
            User.objects.create_user(
                name, password=passwords[name], is_staff=name == "lead", is_superuser=name == "lead"
            )
    return passwords


def new_demo_passwords() -> dict[str, str]:
    """A new random password for each demo user there is (the first ones are shown only once, when made)."""
    User = get_user_model()
    passwords = {}
    for user in User.objects.filter(username__in=DEMO_USERS).order_by("username"):
        passwords[user.username] = secrets.token_urlsafe(9)
        user.set_password(passwords[user.username])
        user.save(update_fields=["password"])
    return passwords


def _load_published_labels(study: Study) -> None:
    """The seven annotators' published theme labels for the demo reports, as seven read-only raters."""
    raters = _raters("paper-rater", 7)
    study.memberships.bulk_create([study.memberships.model(study=study, user=r) for r in raters])
    themes = {c.code: c for c in Category.objects.filter(codebook=study.codebook).select_related("parent")}
    issues = {i.url: i for i in study.issues.all()}
    round = study.rounds.get(number=1)
    labels = []
    with open(PAPER_LABELS, encoding="utf-8", newline="") as f:
        for row in csv.DictReader(f):
            for rater, column in zip(raters, [f"Label{i}" for i in range(1, 8)], strict=True):
                theme = themes[row[column]]
                labels.append(Label(study=study, round=round, issue=issues[row["Issue_URL"]], annotator=rater,
                                    type=theme.parent, theme=theme))
    bulk_create_with_history(labels, Label, batch_size=1000)
    # The published labels are a finished independent round: the demo opens the review of its ties.
    lead = study.memberships.get(role=Membership.Role.LEAD).user
    advance(study, lead, confirm_missing=True)


def _raters(prefix: str, n: int) -> list:
    """Read-only raters: inactive accounts with no password, which no one logs in as."""
    User = get_user_model()
    raters = []
    for i in range(1, n + 1):
        rater, created = User.objects.get_or_create(username=f"{prefix}-{i}", defaults={"is_active": False})
        if created:
            rater.set_unusable_password()
            rater.save()
        raters.append(rater)
    return raters


def _load_simulated_labels(study: Study) -> None:
    """Four simulated annotators' labels of the first reports, made by a seeded script from the study's final
    labels (see KEEP), so that the demo's review, adjudication and statistics have ties to show. The study's
    description says they are simulated."""
    raters = _raters("simulated-rater", 4)
    study.memberships.bulk_create([study.memberships.model(study=study, user=r) for r in raters])
    categories = list(Category.objects.filter(codebook=study.codebook, level=Category.Level.THEME)
                      .select_related("parent").order_by("position"))
    themes = {c.code: c for c in categories}
    issues = {i.url: i for i in study.issues.all()}
    round = study.rounds.get(number=1)
    pick = random.Random(2025)
    labels = []
    with open(PAPER_LABELS, encoding="utf-8", newline="") as f:
        for row in list(csv.DictReader(f))[:SIMULATED_REPORTS]:
            final = themes[row["Final_Label"]]
            for rater in raters:
                roll = pick.random()
                if roll < NOT_RELEVANT_SHARE:
                    labels.append(Label(study=study, round=round, issue=issues[row["Issue_URL"]], annotator=rater,
                                        is_relevant=False))
                    continue
                theme = final
                if roll > KEEP:
                    near = [c for c in categories if c.parent_id == final.parent_id and c != final]
                    theme = pick.choice(near if near and pick.random() < SAME_TYPE else categories)
                labels.append(Label(study=study, round=round, issue=issues[row["Issue_URL"]], annotator=rater,
                                    type=theme.parent, theme=theme))
    bulk_create_with_history(labels, Label, batch_size=1000)
    # Through the review (no one re-labels there) into adjudication: the ties wait for the lead's decision.
    lead = study.memberships.get(role=Membership.Role.LEAD).user
    advance(study, lead, confirm_missing=True)
    advance(Study.objects.get(pk=study.pk), lead, confirm_missing=True)


@transaction.atomic
def load_demo() -> dict[str, str]:
    """Idempotent: a second run adds nothing. Returns passwords of users created by this run."""
    codebook = load_codebook()
    load_shipped_lists()
    source = get_or_create_source("vllm-project/vllm", display_name="vLLM", kind=Source.Kind.TOOLKIT)
    import_file(DEMO_ISSUES, source, file_format="jsonl")
    passwords = _make_users()
    User = get_user_model()
    lead = User.objects.get(username="lead")
    annotators = list(User.objects.filter(username__in=DEMO_USERS[1:]).order_by("username"))
    issues = source.issues.all()
    if not Study.objects.filter(name=LABELING_STUDY).exists():
        # Each demo study has its own copy of the codebook, so that its lead can try changes on it.
        create_study(name=LABELING_STUDY, codebook=copy_codebook(codebook, f"{codebook.version} for {LABELING_STUDY}"),
                     issues=issues, lead=lead, annotators=annotators,
                     description="300 real vLLM issue reports to label with the study's final codebook.")
    if not Study.objects.filter(name=PUBLISHED_STUDY).exists():
        study = create_study(name=PUBLISHED_STUDY,
                             codebook=copy_codebook(codebook, f"{codebook.version} for {PUBLISHED_STUDY}"),
                             issues=issues, lead=lead,
                             description="The same reports with the labels the study's seven annotators published.")
        _load_published_labels(study)
    if not Study.objects.filter(name=SIMULATED_STUDY).exists():
        urls = []
        with open(PAPER_LABELS, encoding="utf-8", newline="") as f:
            urls = [row["Issue_URL"] for row in csv.DictReader(f)][:SIMULATED_REPORTS]
        study = create_study(
            name=SIMULATED_STUDY, codebook=copy_codebook(codebook, f"{codebook.version} for {SIMULATED_STUDY}"),
            issues=issues.filter(url__in=urls), lead=lead, with_pilot=False,
            description="Simulated labels, not a finding: four made-up annotators labeled 120 of the reports by a "
                        "seeded script from the study's final labels, keeping each 70 % of the time and otherwise "
                        "picking another theme. Their two-against-two splits are here so that the review, the "
                        "lead's adjudication and the statistics can be tried on first run.")
        _load_simulated_labels(study)
    return passwords
