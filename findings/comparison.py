"""Are a study's subsets labeled differently? Reads: subsets by how reports were selected (source, year, keyword
group, screening verdict, saved subsets such as the no-keyword baseline), each report's label at a level
(its final label, or the label its current votes settle on), and the contingency analysis. Saved
subsets are made by findings.subsets."""
from __future__ import annotations

from collections import defaultdict

from django.db.models import Count
from django.utils.translation import gettext_lazy as _

from annotation.models import NOT_RELEVANT, FinalLabel, Study
from annotation.selectors.labels import screening_verdicts
from annotation.selectors.votes import current_votes
from concord.errors import FieldError
from ingest.models import Keyword
from stats.contingency import Comparison, compare
from stats.lazy_numpy import np
from stats.ties import final_label
from taxonomy.codes import sort_key
from taxonomy.models import Category

from .models import Subset

RULES = {
    "source": _("source repository"),
    "year": _("year the report was opened"),
    "keyword_group": _("keyword group (the origin of the matched keywords)"),
    "verdict": _("screening verdict"),
    "subset": _("saved subsets (the no-keyword baseline, lists)"),
}
LEVELS = ("type", "theme", "sub_theme")
# A report matched by keywords of several groups counts in the most specific one.
GROUP_ORDER = [Keyword.Origin.MODEL_NAME, Keyword.Origin.FRAMEWORK_API, Keyword.Origin.PARALLELISM,
               Keyword.Origin.HARDWARE_PRECISION, Keyword.Origin.OTHER]


class ComparisonError(FieldError):
    """A comparison or subset that cannot be made."""


def labels_at(study: Study, level: str) -> dict[int, str]:
    """Each report's label at `level`: its final label, else what its current votes settle on; reports still
    tied or unlabeled are left out."""
    codes = dict(Category.objects.filter(codebook=study.codebook_id).values_list("pk", "code"))
    index = LEVELS.index(level)
    out: dict[int, str] = {}
    for issue_id, relevant, *chain in FinalLabel.objects.filter(study=study).values_list(
            "issue_id", "is_relevant", "type_id", "theme_id", "sub_theme_id"):
        pick = chain[index] if relevant else None
        if not relevant:
            out[issue_id] = NOT_RELEVANT
        elif pick:
            out[issue_id] = codes[pick]
    for issue_id, votes in current_votes(study).items():
        if issue_id in out:
            continue
        settled = final_label(list(votes.values()))
        if settled is None:
            continue
        chain, _ = settled
        if chain[0] == NOT_RELEVANT:
            out[issue_id] = NOT_RELEVANT
        elif chain[index]:
            out[issue_id] = codes[chain[index]]
    return out


def _by_source(study: Study, groups: dict[str, set[int]]) -> None:
    for pk, name in study.issues.values_list("pk", "source__full_name"):
        groups[name].add(pk)


def _by_year(study: Study, groups: dict[str, set[int]]) -> None:
    for pk, year in study.issues.values_list("pk", "created_at__year"):
        groups[str(year or "unknown")].add(pk)


def _by_keyword_group(study: Study, groups: dict[str, set[int]]) -> None:
    origins: dict[int, set[str]] = defaultdict(set)
    for pk, origin in study.issues.values_list("pk", "matched_keywords__origin"):
        if origin:
            origins[pk].add(origin)
    labels = dict(Keyword.Origin.choices)
    for pk in study.issues.values_list("pk", flat=True):
        found = next((o for o in GROUP_ORDER if o in origins.get(pk, ())), None)
        groups[labels[found] if found else "no keyword"].add(pk)


def _by_verdict(study: Study, groups: dict[str, set[int]]) -> None:
    verdicts = screening_verdicts(study)
    for pk in study.issues.values_list("pk", flat=True):
        groups[verdicts.get(pk, ("undecided", ""))[0]].add(pk)


def _by_subset(study: Study, groups: dict[str, set[int]]) -> None:
    # The test needs each report in one subset: a report in several counts in the one made first.
    taken: set[int] = set()
    for subset in study.subsets.order_by("created_at", "pk"):
        members = set(subset.issues.values_list("pk", flat=True)) - taken
        if members:
            groups[subset.name] = members
        taken |= members
    rest = set(study.issues.values_list("pk", flat=True)) - taken
    if rest:
        groups["rest of the study"] = rest


def subsets_by(study: Study, by: str) -> dict[str, set[int]]:
    if by not in RULES:
        raise ComparisonError("by", f"one of {', '.join(RULES)}")
    groups: dict[str, set[int]] = defaultdict(set)
    {"source": _by_source, "year": _by_year, "keyword_group": _by_keyword_group,
     "verdict": _by_verdict}.get(by, _by_subset)(study, groups)
    return dict(groups)


def compare_study(study: Study, by: str, level: str = "theme", *, seed: int = 0) -> Comparison:
    if level not in LEVELS:
        raise ComparisonError("level", f"one of {', '.join(LEVELS)}")
    labels = labels_at(study, level)
    groups = subsets_by(study, by)
    names = sorted(groups)
    categories = sorted({labels[i] for members in groups.values() for i in members if i in labels}, key=sort_key)
    counts = np.array([[sum(1 for i in groups[name] if labels.get(i) == c) for c in categories] for name in names],
                      dtype=np.int64).reshape(len(names), len(categories))
    return compare(counts, names, categories, seed=seed)


def as_dict(result: Comparison, by: str, level: str) -> dict:
    def grid(values):
        return None if values is None else [[round(float(v), 6) for v in row] for row in values]

    return {"by": by, "level": level, "subsets": result.subsets, "categories": result.categories,
            "counts": result.counts.tolist(), "chi2": result.chi2, "df": result.df, "p": result.p,
            "cramers_v": result.cramers_v, "residuals": grid(result.residuals), "shares": grid(result.shares),
            "share_low": grid(result.share_low), "share_high": grid(result.share_high),
            "small_expected": result.small_expected, "exact_p": result.exact_p, "exact_method": result.exact_method,
            "undefined_because": result.undefined_because}


def overlapping(study: Study) -> int:
    """Reports that belong to more than one saved subset (each is compared in the subset made first)."""
    through = Subset.issues.through
    return through.objects.filter(subset__study=study).values("issue_id").annotate(n=Count("subset_id")).filter(
        n__gt=1).count()
