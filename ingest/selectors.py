"""Reads of screening. The screened corpus: every issue's in/out decision and why, and the per-source report
of the study's Table 1 (reports by year, and the false-positive rate of the keyword filter), from the data; the
"by type" column is read from labels, a layer above (annotation.selectors.labels.majority_types). Screening samples:
the next item for a screener, each item's verdict, a sample's figures and its screeners' word on the summaries."""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from stats.proportions import Rate, rate

from .models import Issue, ScreeningItem, ScreeningSample, ScreeningVote, Source, Summary, SummaryReview
from .screening import (
    KEYWORD_RULE,
    PairAgreement,
    Watch,
    final_verdict,
    needs_tiebreak,
    pair_agreement,
    precision,
    watch,
)

RELEVANT, NOT_RELEVANT, UNCLEAR = Summary.Verdict.RELEVANT, Summary.Verdict.NOT_RELEVANT, Summary.Verdict.UNCLEAR


@dataclass(frozen=True)
class ScreeningDecision:
    """Whether screening keeps an issue in the corpus, and why (not a study's final label: annotation.FinalLabel)."""

    included: bool | None  # None: not decided yet
    why: str


def reviewed_of(source: Source) -> dict[int, tuple[bool, str]]:
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


def decisions(source: Source, issue_ids=None, reviewed: dict[int, tuple[bool, str]] | None = None,
              id_range: tuple[int, int] | None = None) -> dict[int, ScreeningDecision]:
    """A reviewed issue goes by its review; otherwise "relevant" stays in, "not relevant"
    stays out, and "unclear" waits for its review. `issue_ids`, or `id_range` (first, last): only those issues
    (an export takes a chunk at a time, so that its memory does not grow with the corpus; a range of ids is read
    as fast as the whole); `reviewed`: the source's reviews, read once for all the chunks."""
    summaries = Summary.objects.filter(issue__source=source, status=Summary.Status.OK)
    issues = source.issues.all()
    if issue_ids is not None:
        summaries, issues = summaries.filter(issue_id__in=issue_ids), issues.filter(pk__in=issue_ids)
    if id_range is not None:
        first, last = id_range
        summaries = summaries.filter(issue_id__gte=first, issue_id__lte=last)
        issues = issues.filter(pk__gte=first, pk__lte=last)
    pre: dict[int, str] = {}
    # The newest summary's pre-verdict; of two written at the same moment, the later one.
    for issue_id, verdict in summaries.order_by("updated_at", "pk").values_list("issue_id", "verdict"):
        pre[issue_id] = verdict
    reviewed = reviewed_of(source) if reviewed is None else reviewed
    return {issue_id: decision(kept, reviewed.get(issue_id), pre.get(issue_id))
            for issue_id, kept in issues.values_list("pk", "kept")}


def decision(kept: bool, review: tuple[bool, str] | None, pre: str | None) -> ScreeningDecision:
    """One issue's screening decision from what it is made of: whether a keyword kept it, its stratum review
    (verdict, where) if it had one, and its newest summary's pre-verdict if it has a summary."""
    if not kept:
        return ScreeningDecision(False, "no keyword of the source's list matched")
    if review is not None:
        verdict, where = review
        return ScreeningDecision(verdict, f"{where}: judged {'relevant' if verdict else 'not relevant'}")
    if pre is None:
        return ScreeningDecision(None, "no pre-verdict yet")
    if pre == RELEVANT:
        return ScreeningDecision(True, "pre-verdict relevant, not sampled")
    if pre == NOT_RELEVANT:
        return ScreeningDecision(False, "pre-verdict not relevant, not sampled")
    return ScreeningDecision(None, "pre-verdict unclear: awaiting review")


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


# Screening samples: the next item for a screener, each item's verdict, the sample's figures.


def next_item_for(user, sample: ScreeningSample, skipped=()) -> ScreeningItem | None:
    items = sample.items.select_related("issue__source").order_by("position")
    if user.pk in (sample.reviewer_a_id, sample.reviewer_b_id):
        todo = items.exclude(votes__reviewer=user)
    elif user.pk == sample.tiebreaker_id:
        # One read of the sample's votes, not one per item: the items the two screeners split on.
        _verdicts, votes = verdicts_of(sample)
        split = [item_id for item_id, v in votes.items() if user.pk not in v
                 and needs_tiebreak(v.get(sample.reviewer_a_id), v.get(sample.reviewer_b_id))]
        todo = items.filter(pk__in=split)
    else:
        return None
    return todo.exclude(pk__in=list(skipped)).first() or todo.first()


@dataclass
class SampleFigures:
    rate: Rate  # share judged relevant among decided items
    decided: int
    awaiting_votes: int
    awaiting_tiebreak: int
    total: int
    # The two screeners' relevance verdicts, item by item, before the tie-breaker.
    verdict_agreement: PairAgreement | None = None
    # The rate's confidence sequence, read in the drawn order; it stops a keyword's sample at its threshold.
    watch: Watch | None = None


def verdicts_of(sample: ScreeningSample) -> tuple[dict[int, bool | None], dict[int, dict[int, bool]]]:
    """Each item's final verdict: the two screeners when they agree, else the tie-breaker; None while open."""
    votes: dict[int, dict[int, bool]] = {}
    for item_id, reviewer_id, is_relevant in ScreeningVote.objects.filter(item__sample=sample).values_list(
        "item_id", "reviewer_id", "is_relevant"
    ):
        votes.setdefault(item_id, {})[reviewer_id] = is_relevant
    result = {}
    # In the drawn order: the confidence sequence reads the verdicts so.
    for item_id in sample.items.order_by("position").values_list("pk", flat=True):
        v = votes.get(item_id, {})
        result[item_id] = final_verdict(v.get(sample.reviewer_a_id), v.get(sample.reviewer_b_id),
                                        v.get(sample.tiebreaker_id))
    return result, votes


def sample_figures(sample: ScreeningSample) -> SampleFigures:
    verdicts, votes = verdicts_of(sample)
    ties = sum(1 for item_id, verdict in verdicts.items() if verdict is None and needs_tiebreak(
        votes.get(item_id, {}).get(sample.reviewer_a_id), votes.get(item_id, {}).get(sample.reviewer_b_id)))
    decided = [v for v in verdicts.values() if v is not None]
    both = [(v[sample.reviewer_a_id], v[sample.reviewer_b_id]) for v in votes.values()
            if sample.reviewer_a_id in v and sample.reviewer_b_id in v]
    threshold = sample.threshold if sample.kind == ScreeningSample.Kind.KEYWORD else None
    return SampleFigures(rate=precision(list(verdicts.values())), decided=len(decided),
                         awaiting_votes=len(verdicts) - len(decided) - ties, awaiting_tiebreak=ties,
                         total=len(verdicts), verdict_agreement=pair_agreement(both) if both else None,
                         watch=watch(list(verdicts.values()), sample.population, threshold))


def sample_document(sample: ScreeningSample, figures: SampleFigures | None = None) -> dict:
    """A sample's figures as the API, the replication package and the dataset card give them: the rate with
    Wilson's interval (for the sample read once, at its end), the confidence sequence (read after every vote),
    and for a keyword the threshold, the rule and where the sequence stopped."""
    figures = figures or sample_figures(sample)
    rate, seen = figures.rate, figures.watch
    document = {
        "kind": sample.kind, "status": sample.status, "keyword": sample.keyword.term if sample.keyword else None,
        "source": sample.source.full_name if sample.source else None, "stratum": sample.stratum or None,
        "population": sample.population, "drawn": figures.total, "decided": figures.decided,
        "rate": {"relevant": rate.successes, "n": rate.n, "value": rate.value, "wilson_95": [rate.low, rate.high]},
        "sequence": {"verdicts_read": seen.n, "low": seen.low, "high": seen.high, "alpha": 0.05,
                     "method": "betting confidence sequence for sampling without replacement "
                               "(Waudby-Smith & Ramdas 2020), the verdicts in the drawn order"},
    }
    if sample.kind == ScreeningSample.Kind.KEYWORD:
        document |= {"threshold": sample.threshold, "size": sample.size, "rule": KEYWORD_RULE,
                     "stop": sample.sequence_stop}
    return document


def meets_threshold(sample: ScreeningSample) -> bool:
    value = sample_figures(sample).rate.value
    return value is not None and value >= sample.threshold


@dataclass
class SufficiencyFigures:
    per_reviewer: dict[str, Rate]
    agreement: PairAgreement | None


def summary_sufficiency(sample: ScreeningSample) -> SufficiencyFigures:
    """How often each screener found the summary enough, and how far the two agree on it."""
    issues = sample.items.values_list("issue_id", flat=True)
    reviews: dict[int, dict[int, bool]] = {}
    for summary_id, reviewer_id, sufficient in SummaryReview.objects.filter(
        summary__issue_id__in=issues, reviewer_id__in=[sample.reviewer_a_id, sample.reviewer_b_id]
    ).values_list("summary_id", "reviewer_id", "sufficient"):
        reviews.setdefault(summary_id, {})[reviewer_id] = sufficient
    per_reviewer = {}
    for reviewer in (sample.reviewer_a, sample.reviewer_b):
        said = [r[reviewer.pk] for r in reviews.values() if reviewer.pk in r]
        per_reviewer[reviewer.username] = rate(sum(said), len(said))
    pairs = [(r[sample.reviewer_a_id], r[sample.reviewer_b_id]) for r in reviews.values()
             if sample.reviewer_a_id in r and sample.reviewer_b_id in r]
    return SufficiencyFigures(per_reviewer=per_reviewer, agreement=pair_agreement(pairs) if pairs else None)
