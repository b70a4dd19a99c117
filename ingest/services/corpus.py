"""The screened corpus: every issue's in/out decision and why, and the per-source report of the study's
Table 1 (reports by year, and the false-positive rate of the keyword filter), from the data; the "by type"
column is read from labels, a layer above (annotation.selectors.majority_types)."""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from ..models import Issue, ScreeningSample, Source, Summary
from ..screening import rate
from .screening import sample_figures, verdicts_of

RELEVANT, NOT_RELEVANT, UNCLEAR = Summary.Verdict.RELEVANT, Summary.Verdict.NOT_RELEVANT, Summary.Verdict.UNCLEAR


@dataclass(frozen=True)
class ScreeningDecision:
    """Whether screening keeps an issue in the corpus, and why (not a study's final label: annotation.Decision)."""

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


def decisions(source: Source) -> dict[int, ScreeningDecision]:
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
            result[issue_id] = ScreeningDecision(False, "no keyword of the source's list matched")
        elif issue_id in reviewed:
            verdict, where = reviewed[issue_id]
            judged = "relevant" if verdict else "not relevant"
            result[issue_id] = ScreeningDecision(verdict, f"{where}: judged {judged}")
        elif issue_id not in pre:
            result[issue_id] = ScreeningDecision(None, "no pre-verdict yet")
        elif pre[issue_id] == RELEVANT:
            result[issue_id] = ScreeningDecision(True, "pre-verdict relevant, not sampled")
        elif pre[issue_id] == NOT_RELEVANT:
            result[issue_id] = ScreeningDecision(False, "pre-verdict not relevant, not sampled")
        else:
            result[issue_id] = ScreeningDecision(None, "pre-verdict unclear: awaiting review")
    return result


@dataclass
class SourceRow:
    source: Source
    stored: int = 0
    keyword_kept: int = 0
    included: int = 0
    included_ids: list[int] = field(default_factory=list)
    undecided: int = 0
    by_year: Counter = field(default_factory=Counter)
    false_positive: object = None  # Rate: kept by keywords, then screened out
    relevant_precision: object = None  # Rate from the newest "relevant" stratum sample
    false_negative: object = None  # Rate from the newest "not relevant" stratum sample


def source_report(source: Source) -> SourceRow:
    row = SourceRow(source=source)
    decided = decisions(source)
    row.stored = len(decided)
    keyword_kept = [d for d in decided.values() if d.why != "no keyword of the source's list matched"]
    row.keyword_kept = len(keyword_kept)
    included = [issue_id for issue_id, d in decided.items() if d.included]
    row.included, row.included_ids = len(included), included
    row.undecided = sum(1 for d in decided.values() if d.included is None)
    years = dict(Issue.objects.filter(pk__in=included).values_list("pk", "created_at__year"))
    row.by_year = Counter(years[i] for i in included if years.get(i))
    out = sum(1 for d in keyword_kept if d.included is False)
    row.false_positive = rate(out, sum(1 for d in keyword_kept if d.included is not None))
    for stratum, attribute in ((RELEVANT, "relevant_precision"), (NOT_RELEVANT, "false_negative")):
        sample = source.samples.filter(kind=ScreeningSample.Kind.STRATUM, stratum=stratum).first()
        if sample is not None:
            setattr(row, attribute, sample_figures(sample).rate)
    return row
