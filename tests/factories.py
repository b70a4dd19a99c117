"""Plain factory functions: each makes one row with sensible defaults that a test may override."""
from __future__ import annotations

import itertools
from collections.abc import Mapping

from django.contrib.auth import get_user_model

from annotation.models import Round, Study
from annotation.services.labels import LabelInput, submit_label
from annotation.services.studies import create_study
from ingest.models import Issue, Source
from taxonomy.models import Category, Codebook
from taxonomy.services import load_codebook

_seq = itertools.count(1)


def make_user(username: str | None = None, **extra):
    username = username or f"user{next(_seq)}"
    return get_user_model().objects.create_user(username, password="pw-" + username, **extra)


def make_source(full_name: str = "vllm-project/vllm", **extra) -> Source:
    return Source.objects.get_or_create(full_name=full_name, defaults=extra)[0]


def make_issue(source: Source | None = None, **overrides) -> Issue:
    n = next(_seq)
    fields = {"number": str(n), "title": f"Report {n}", "body": f"Body of report {n}.",
              "url": f"https://github.com/vllm-project/vllm/issues/{n}"}
    fields.update(overrides)
    return Issue.objects.create(source=source or make_source(), **fields)


def codebook() -> Codebook:
    return load_codebook()


def category(code: str, codebook: Codebook | None = None) -> Category:
    return Category.objects.get(codebook=codebook or Codebook.objects.get(), code=code)


def make_study(lead, annotators=(), issues=None, n_issues: int = 3, name: str | None = None,
               lead_labels_blind: bool = False) -> Study:
    """A study in its independent round. Its lead sees everything while labeling (the setting off), as most
    tests of the lead's tools need; the tests of the blind lead turn it on."""
    issues = issues if issues is not None else [make_issue() for _ in range(n_issues)]
    return create_study(name=name or f"Study {next(_seq)}", codebook=codebook(), issues=issues,
                        lead=lead, annotators=annotators, lead_labels_blind=lead_labels_blind)


def label_with(user, study: Study, issue: Issue, code: str, note: str = "", round: Round | None = None):
    """Label at the most specific level `code` names (A, B.2, C.6.iv, or NR)."""
    round = round or study.rounds.get(number=1)
    if code == "NR":
        return submit_label(user, round, issue, LabelInput(is_relevant=False, note=note))
    node = category(code, study.codebook)
    chain = [node]
    while chain[-1].parent_id:
        chain.append(chain[-1].parent)
    chain.reverse()
    ids = [c.pk for c in chain] + [None] * (3 - len(chain))
    return submit_label(user, round, issue, LabelInput(type_id=ids[0], theme_id=ids[1], sub_theme_id=ids[2], note=note))


def study_labeled_as(lead, annotators, rows) -> Study:
    """A study of one new report per row, each annotator labeling it with the row's code in their place ("" for
    no label)."""
    issues = [make_issue() for _ in rows]
    study = make_study(lead, annotators, issues=issues)
    for issue, codes in zip(issues, rows, strict=True):
        for user, code in zip(annotators, codes, strict=True):
            if code:
                label_with(user, study, issue, code)
    return study


def finished_run(rater, labels: Mapping[int, str], confidence: float | Mapping[int, float] | None = None):
    """A run of the machine rater that succeeded and is its labels of record, labeling each report (by id) with
    its code: a type ("C") or a theme ("C.1", of type C). `confidence`: one for every label, or per report."""
    from machines.models import MachineLabel, MachineRun

    run = MachineRun.objects.create(rater=rater, status="succeeded")
    MachineLabel.objects.bulk_create(
        MachineLabel(run=run, issue_id=i, type_code=code.split(".")[0], theme_code=code if "." in code else "",
                     confidence=confidence.get(i) if isinstance(confidence, Mapping) else confidence)
        for i, code in labels.items())
    run.finished_at = run.created_at
    run.save()
    return run
