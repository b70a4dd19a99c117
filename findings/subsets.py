"""Subsets of a study to compare: a seeded no-keyword baseline drawn from the study's sources and
added to its queues, or a named subset defined by rules or a saved list. Both are stored, so later comparisons
see the same reports."""
from __future__ import annotations

from annotation.models import Study
from annotation.selectors.labels import screening_verdicts
from annotation.services.phases import open_round
from annotation.services.queues import fill_queues, plan_round
from annotation.services.selection import parse_saved_list
from concord.errors import FieldError
from concord.textcheck import INT64_MAX, fitted, int_problem
from ingest.models import Issue, Keyword
from ingest.screening import seeded_sample

from .comparison import ComparisonError, labels_at
from .models import Subset


def _check_subset(name: str, seed: int | None = None) -> None:
    """A subset's name and seed must fit their columns (PostgreSQL refuses what SQLite would store)."""
    try:
        fitted(name, "name", Subset._meta.get_field("name").max_length)
    except FieldError as exc:
        raise ComparisonError(exc.field, exc.message) from exc
    if seed is not None and (problem := int_problem(seed, 0, INT64_MAX)):
        raise ComparisonError("seed", f"{problem}")


def draw_baseline(study: Study, size: int, seed: int, name: str = "baseline", keyword_group: str = "") -> Subset:
    """A seeded random sample of the study's sources' issues that matched no keyword (or, with `keyword_group`,
    that matched a keyword of that group), not yet in the study, added to it as its own subset and to the open
    round's queues, to be labeled with the same codebook and rounds."""
    if size < 1:
        raise ComparisonError("size", "draw at least one report")
    _check_subset(name, seed)
    if keyword_group and keyword_group not in Keyword.Origin.values:
        raise ComparisonError("keyword_group",
                              f"{keyword_group[:40]!r} is not one of {', '.join(Keyword.Origin.values)}")
    if study.subsets.filter(name=name).exists():
        raise ComparisonError("name", f"the study has a subset named {name!r} already")
    sources = study.issues.values("source_id").distinct()
    population = Issue.objects.filter(source_id__in=sources).exclude(studies=study)
    population = (population.filter(matched_keywords__origin=keyword_group).distinct() if keyword_group
                  else population.filter(kept=False))
    drawn = seeded_sample(population.values_list("pk", flat=True), seed, size=size)
    if not drawn:
        raise ComparisonError("population", "the study's sources have no such issue outside the study")
    subset = Subset.objects.create(study=study, name=name, kind=Subset.Kind.BASELINE, seed=seed)
    subset.issues.set(drawn)
    study.issues.add(*drawn)
    round = open_round(study)
    if round is not None and round.kind == round.Kind.INDEPENDENT:
        labelers = list(study.memberships.filter(user__is_active=True).values_list("user_id", flat=True))
        fill_queues(round, plan_round(round, labelers, issue_ids=sorted(drawn), overlap=study.overlap))
    return subset


def define_subset(study: Study, name: str, *, sources: list[str] = (), years: list[int] = (), type_code: str = "",
                  keyword: str = "", keyword_group: str = "", verdict: str = "", saved_list: str = "") -> Subset:
    """A named subset from rules combined with AND (source, year, final type, matched keyword or keyword group,
    screening verdict), or from a saved list of reports; it is stored, so later comparisons see the same
    reports."""
    name = name.strip()
    if not name:
        raise ComparisonError("name", "give the subset a name")
    _check_subset(name)
    if study.subsets.filter(name=name).exists():
        raise ComparisonError("name", f"the study has a subset named {name!r} already")
    issues = study.issues.all()
    if saved_list.strip():
        issues = issues.filter(pk__in=parse_saved_list(saved_list))
    if sources:
        issues = issues.filter(source__full_name__in=sources)
    if years:
        issues = issues.filter(created_at__year__in=years)
    if keyword:
        issues = issues.filter(matched_keywords__term__iexact=keyword.strip())
    if keyword_group:
        issues = issues.filter(matched_keywords__origin=keyword_group)
    ids = set(issues.values_list("pk", flat=True))
    if type_code:
        types = labels_at(study, "type")
        ids = {i for i in ids if types.get(i) == type_code}
    if verdict:
        verdicts = screening_verdicts(study)
        ids = {i for i in ids if verdicts.get(i, ("undecided", ""))[0] == verdict}
    if not ids:
        raise ComparisonError("rules", "no report of the study matches them")
    subset = Subset.objects.create(study=study, name=name, kind=Subset.Kind.LIST)
    subset.issues.set(ids)
    return subset
