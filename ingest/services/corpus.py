"""The screened corpus: every issue's in/out decision and why, and the per-source report of the study's
Table 1 (reports by year and by type, and the false-positive rate of the keyword filter), from the data."""
from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import dataclass, field

from agreement.ties import modal_label
from annotation.models import Label

from ..models import Issue, ScreeningSample, Source, Summary
from ..screening import rate
from .screening import sample_figures, verdicts_of

RELEVANT, NOT_RELEVANT, UNCLEAR = Summary.Verdict.RELEVANT, Summary.Verdict.NOT_RELEVANT, Summary.Verdict.UNCLEAR


@dataclass(frozen=True)
class Decision:
    included: bool | None  # None: not decided yet
    why: str


def _reviewed(source: Source) -> dict[int, tuple[bool, str]]:
    """Final verdicts of the source's stratum samples, by issue."""
    reviewed = {}
    for sample in ScreeningSample.objects.filter(source=source, kind=ScreeningSample.Kind.STRATUM):
        verdicts, _votes = verdicts_of(sample)
        issue_of = dict(sample.items.values_list("pk", "issue_id"))
        for item_id, verdict in verdicts.items():
            if verdict is not None:
                # Named by what it is, not by its id, so the reason reads the same after a backup is restored.
                reviewed[issue_of[item_id]] = (verdict, f"reviewed in the {sample.get_stratum_display().lower()!r} "
                                                        f"sample of {sample.created_at:%Y-%m-%d} (seed {sample.seed})")
    return reviewed


def decisions(source: Source) -> dict[int, Decision]:
    """DESIGN step 5: a reviewed issue goes by its review; otherwise "relevant" stays in, "not relevant"
    stays out, and "unclear" waits for its review."""
    pre: dict[int, str] = {}
    for issue_id, verdict in Summary.objects.filter(issue__source=source, status=Summary.Status.OK).order_by(
        "updated_at"
    ).values_list("issue_id", "verdict"):
        pre[issue_id] = verdict
    reviewed = _reviewed(source)
    result = {}
    for issue_id, kept in source.issues.values_list("pk", "kept"):
        if not kept:
            result[issue_id] = Decision(False, "no keyword of the source's list matched")
        elif issue_id in reviewed:
            verdict, where = reviewed[issue_id]
            result[issue_id] = Decision(verdict, f"{where}: judged {'relevant' if verdict else 'not relevant'}")
        elif issue_id not in pre:
            result[issue_id] = Decision(None, "no pre-verdict yet")
        elif pre[issue_id] == RELEVANT:
            result[issue_id] = Decision(True, "pre-verdict relevant, not sampled")
        elif pre[issue_id] == NOT_RELEVANT:
            result[issue_id] = Decision(False, "pre-verdict not relevant, not sampled")
        else:
            result[issue_id] = Decision(None, "pre-verdict unclear: awaiting review")
    return result


@dataclass
class SourceRow:
    source: Source
    stored: int = 0
    keyword_kept: int = 0
    included: int = 0
    undecided: int = 0
    by_year: Counter = field(default_factory=Counter)
    by_type: Counter = field(default_factory=Counter)
    false_positive: object = None  # Rate: kept by keywords, then screened out
    relevant_precision: object = None  # Rate from the newest "relevant" stratum sample
    false_negative: object = None  # Rate from the newest "not relevant" stratum sample


def _majority_types(issue_ids: list[int]) -> dict[int, str]:
    """Each issue's type by the majority of its labels' types in studies (blank while unlabeled or tied)."""
    types: dict[int, list[str]] = defaultdict(list)
    for issue_id, name in Label.objects.filter(issue_id__in=issue_ids, is_relevant=True).values_list(
        "issue_id", "type__name"
    ):
        types[issue_id].append(name)
    return {issue_id: modal_label(names) or "" for issue_id, names in types.items()}


def source_report(source: Source) -> SourceRow:
    row = SourceRow(source=source)
    decided = decisions(source)
    row.stored = len(decided)
    keyword_kept = [d for d in decided.values() if d.why != "no keyword of the source's list matched"]
    row.keyword_kept = len(keyword_kept)
    included = [issue_id for issue_id, d in decided.items() if d.included]
    row.included = len(included)
    row.undecided = sum(1 for d in decided.values() if d.included is None)
    years = dict(Issue.objects.filter(pk__in=included).values_list("pk", "created_at__year"))
    row.by_year = Counter(years[i] for i in included if years.get(i))
    types = _majority_types(included)
    row.by_type = Counter(types.get(i, "") or "unlabeled" for i in included)
    out = sum(1 for d in keyword_kept if d.included is False)
    row.false_positive = rate(out, sum(1 for d in keyword_kept if d.included is not None))
    for stratum, attribute in ((RELEVANT, "relevant_precision"), (NOT_RELEVANT, "false_negative")):
        sample = source.samples.filter(kind=ScreeningSample.Kind.STRATUM, stratum=stratum).first()
        if sample is not None:
            setattr(row, attribute, sample_figures(sample).rate)
    return row
