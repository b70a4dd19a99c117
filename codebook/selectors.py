"""Reads of a study's codebook: the tree as searched, and what other people's labels say about each category
(counts and notes), which the blind rule hides from a viewer who labels blind."""
from __future__ import annotations

from typing import NamedTuple

from django.db.models import Count, Q

from annotation.models import Label
from annotation.permissions import can_view_all_labels
from annotation.selectors.studies import current_round
from concord.errors import FieldError
from taxonomy.languages import FIELDS, SECOND
from taxonomy.models import Category
from taxonomy.selectors import codebook_tree

from .models import Proposal


def searched_tree(study, query: str, with_retired: bool) -> list[Category]:
    """The codebook tree; with a query, the categories whose code, name, definition, inclusion or exclusion (in
    either language) contain it, each with its ancestors (`.hit` marks the matches)."""
    types = codebook_tree(study.codebook, with_retired=with_retired,
                          nodes=Category.objects.filter(codebook=study.codebook).prefetch_related("examples__source"))
    if not query:
        return types
    q = query.lower()

    def keep(node) -> bool:
        """Whether the node or anything below it matches; prunes the children that do not."""
        texts = [node.code, *(getattr(node, field) for field in (*FIELDS, *SECOND))]
        node.hit = q in " ".join(texts).lower()
        node.kids = [k for k in node.kids if keep(k)]
        # A hit is shown where it sits in the tree: its ancestors stay.
        return node.hit or bool(node.kids)

    return [t for t in types if keep(t)]


def label_counts(viewer, study) -> dict[int, int] | None:
    """Labels per category in the current round, each counted at every level it names; None for a viewer the
    blind rule keeps from other people's labels."""
    if not can_view_all_labels(viewer, study):
        return None
    round = current_round(study)
    if round is None:
        return {}
    counts: dict[int, int] = {}
    labels = Label.objects.filter(round=round).order_by()
    for field in ("type_id", "theme_id", "sub_theme_id"):
        for pk, n in labels.exclude(**{field: None}).values_list(field).annotate(n=Count("pk")):
            counts[pk] = counts.get(pk, 0) + n
    return counts


def notes_for(viewer, study, category: Category, limit: int = 500):
    """Labels of the study that chose this category and say something, newest first; None for a viewer the
    blind rule keeps from other people's labels."""
    if not can_view_all_labels(viewer, study):
        return None
    return (Label.objects.filter(study=study).filter(Q(type=category) | Q(theme=category) | Q(sub_theme=category))
            .exclude(note="").select_related("annotator", "issue__source").order_by("-updated_at")[:limit])


def reports_numbered(study, numbers: list[str], field: str = "examples") -> list[int]:
    """The ids of the study's reports named "123" or "owner/repo#123" (`codebook.forms.report_numbers`);
    FieldError naming those that are none of its reports."""
    # A bare number may name reports of several sources: each is an example. A repository is named in any case.
    plain = {n for n in numbers if "#" not in n}
    named = {_ref_key(n) for n in numbers if "#" in n}
    # One query for every number named either way; the repository of a named one is matched here.
    candidates = study.issues.filter(number__in=plain | {n.rsplit("#", 1)[1] for n in named}).order_by("pk")
    found, present = [], set()
    for number, pk, repo in candidates.values_list("number", "pk", "source__full_name"):
        for ref in (number, _ref_key(f"{repo}#{number}")):
            if ref in plain or ref in named:
                present.add(ref)
                found.append(pk)
    if missing := [n for n in dict.fromkeys(numbers) if _ref_key(n) not in present]:
        raise FieldError(field, _not_reports(missing))
    return list(dict.fromkeys(found))


def _not_reports(missing: list[str]) -> str:
    shown = ", ".join(n if "#" in n else "#" + n for n in missing[:10])
    return f"{shown} {'is not a report' if len(missing) == 1 else 'are not reports'} of this study"


def _ref_key(ref: str) -> str:
    """A report's reference as compared: a bare number as it is, a repository's name in lower case."""
    if "#" not in ref:
        return ref
    repo, number = ref.rsplit("#", 1)
    return f"{repo.lower()}#{number}"


def report_ids(study, refs: list[str]) -> dict[str, int]:
    """The ids of the study's reports among `refs` ("owner/repo#number", as evidence names them); a ref that
    names none of them is left out."""
    wanted = {ref.rsplit("#", 1)[1]: None for ref in refs if "#" in ref}
    found = {}
    for number, pk, repo in study.issues.filter(number__in=wanted).values_list("number", "pk", "source__full_name"):
        found[f"{repo}#{number}".lower()] = pk
    return {ref: found[ref.lower()] for ref in refs if ref.lower() in found}


class Tally(NamedTuple):
    yes: int
    no: int
    pending: int


def tally(proposal: Proposal) -> Tally:
    counted = with_tally(Proposal.objects.filter(pk=proposal.pk)).get()
    return Tally(counted.yes, counted.no, counted.pending)


def with_tally(proposals):
    """Proposals with their yes / no / not-yet counts, in the same query (lists show many)."""
    return proposals.annotate(yes=Count("votes", filter=Q(votes__choice=True)),
                              no=Count("votes", filter=Q(votes__choice=False)),
                              pending=Count("votes", filter=Q(votes__choice__isnull=True)))


def awaiting(user):
    """Open proposals on which the user still has to vote (the header badge)."""
    return Proposal.objects.filter(status=Proposal.Status.OPEN, votes__voter=user, votes__choice__isnull=True)
