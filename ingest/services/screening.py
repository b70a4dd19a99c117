"""Screening samples: drawing them, votes by two screeners and a tie-breaker, figures, decisions.

Keyword validation, and the stratified verification of pre-verdicts.
"""
from __future__ import annotations

from django.core.exceptions import PermissionDenied
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext

from ..keywords import KeywordMatcher
from ..models import Issue, Keyword, ScreeningItem, ScreeningSample, ScreeningVote, Source, Summary, SummaryReview
from ..normalise import match_text
from ..screening import (
    needs_tiebreak,
    seeded_sample,
)
from ..selectors import sample_figures

# Section 4.1 of the study: 10 % of "relevant" checked, every "unclear", 5 % of "not relevant".
DEFAULT_FRACTIONS = {Summary.Verdict.RELEVANT: 0.10, Summary.Verdict.UNCLEAR: 1.0, Summary.Verdict.NOT_RELEVANT: 0.05}


class ScreeningError(ValueError):
    """A screening action that breaks a rule; the message says which."""


def _create(items: list[int], **fields) -> ScreeningSample:
    with transaction.atomic():
        sample = ScreeningSample.objects.create(**fields)
        ScreeningItem.objects.bulk_create(
            [ScreeningItem(sample=sample, issue_id=issue_id, position=i) for i, issue_id in enumerate(items)]
        )
    return sample


def keyword_population(keyword: Keyword) -> list[int]:
    """Issues of the sources using this keyword's list whose text the keyword matches."""
    matcher = KeywordMatcher([keyword.term])
    issues = Issue.objects.filter(source__keyword_list=keyword.keyword_list).values_list("pk", "title", "body")
    return [pk for pk, title, body in issues.iterator(chunk_size=2000)
            if matcher.matches(match_text(f"{title}\n{body}"))]


def draw_keyword_sample(keyword: Keyword, reviewers, seed: int, size: int = 100, threshold: float = 0.8,
                        user=None) -> ScreeningSample:
    population = keyword_population(keyword)
    if not population:
        raise ScreeningError(f"keyword '{keyword}' matches no issue of the sources that use its list")
    reviewer_a, reviewer_b, tiebreaker = reviewers
    return _create(seeded_sample(population, seed, size=size), kind=ScreeningSample.Kind.KEYWORD, keyword=keyword,
                   seed=seed, size=size, threshold=threshold, population=len(population), reviewer_a=reviewer_a,
                   reviewer_b=reviewer_b, tiebreaker=tiebreaker, created_by=user)


def stratum_population(source: Source, stratum: str) -> list[int]:
    """Kept issues of the source whose newest made summary gives this pre-verdict."""
    verdicts: dict[int, str] = {}
    summaries = Summary.objects.filter(issue__source=source, issue__kept=True, status=Summary.Status.OK)
    for issue_id, verdict in summaries.order_by("updated_at").values_list("issue_id", "verdict"):
        verdicts[issue_id] = verdict
    return [issue_id for issue_id, verdict in verdicts.items() if verdict == stratum]


def draw_stratum_sample(source: Source, stratum: str, reviewers, seed: int, fraction: float | None = None,
                        user=None) -> ScreeningSample:
    fraction = DEFAULT_FRACTIONS[stratum] if fraction is None else fraction
    population = stratum_population(source, stratum)
    drawn = seeded_sample(population, seed, fraction=fraction)
    if not drawn:
        # An empty sample would sit in the list as "0 of 0" with nothing to judge.
        raise ScreeningError(f"{source}: no kept issue's summary says {stratum.replace('_', ' ')!r}"
                             if not population else f"{source}: a share of {fraction:g} of {len(population)} "
                             f"{stratum.replace('_', ' ')!r} issues draws none")
    reviewer_a, reviewer_b, tiebreaker = reviewers
    return _create(drawn, kind=ScreeningSample.Kind.STRATUM,
                   source=source, stratum=stratum, seed=seed, fraction=fraction, population=len(population),
                   reviewer_a=reviewer_a, reviewer_b=reviewer_b, tiebreaker=tiebreaker, created_by=user)


def draw_stratum_samples(source: Source, fractions: dict[str, float | None], reviewers, seed: int,
                         user=None) -> list[ScreeningSample]:
    """One sample per pre-verdict of the source's summaries, at its share; a stratum with nothing to draw is left
    out rather than kept as an empty sample. Refused when no stratum has anything."""
    samples, empty = [], []
    for stratum, fraction in fractions.items():
        try:
            samples.append(draw_stratum_sample(source, stratum, reviewers, seed, fraction, user=user))
        except ScreeningError as exc:
            empty.append(str(exc))
    if not samples:
        raise ScreeningError("; ".join(empty) + ": nothing to draw (make summaries of the kept issues first)")
    return samples


def _votes(item: ScreeningItem) -> dict[int, bool]:
    return dict(item.votes.values_list("reviewer_id", "is_relevant"))


def can_vote(user, item: ScreeningItem) -> bool:
    sample = item.sample
    if user.pk in (sample.reviewer_a_id, sample.reviewer_b_id):
        return True
    votes = _votes(item)
    return user.pk == sample.tiebreaker_id and needs_tiebreak(votes.get(sample.reviewer_a_id),
                                                              votes.get(sample.reviewer_b_id))


@transaction.atomic
def cast_vote(user, item: ScreeningItem, is_relevant: bool, note: str = "") -> ScreeningVote:
    """Record a screener's judgement; judging again revises it, and history keeps the first. A keyword's sample
    is decided by the vote that takes its precision's confidence sequence wholly to one side of its threshold."""
    # The sample's row orders its votes: the one that stops it is the last it takes.
    sample = ScreeningSample.objects.select_for_update(of=("self",)).select_related("keyword").get(
        pk=item.sample_id)
    item.sample = sample
    if sample.status != ScreeningSample.Status.OPEN:
        status = sample.get_status_display().lower()
        if sample.sequence_stop:
            raise ScreeningError(gettext("this sample is %(status)s; its votes can no longer change (its confidence "
                                         "sequence cleared the threshold after %(n)s verdicts)")
                                 % {"status": status, "n": sample.sequence_stop["n"]})
        raise ScreeningError(gettext("this sample is %(status)s; its votes can no longer change") % {"status": status})
    if not can_vote(user, item):
        raise PermissionDenied(gettext("Only the sample's two screeners, or its tie-breaker on a disagreement, may "
                                       "judge."))
    vote, _ = ScreeningVote.objects.update_or_create(
        item=item, reviewer=user, defaults={"is_relevant": is_relevant, "note": note.strip()}
    )
    if sample.kind == ScreeningSample.Kind.KEYWORD:
        _stop_at_threshold(sample)
    return vote


def _stop_at_threshold(sample: ScreeningSample) -> None:
    """Accept or reject the keyword the first time the sequence lies wholly above or below the threshold, and
    record when: read after every vote, a confidence sequence keeps its 95 % (stats.confseq)."""
    stop = sample_figures(sample).watch.stop
    if stop is None:
        return
    sample.sequence_stop = {"n": stop.n, "meets": stop.meets, "low": stop.low, "high": stop.high, "alpha": 0.05}
    sample.status = ScreeningSample.Status.ACCEPTED if stop.meets else ScreeningSample.Status.REJECTED
    sample.decided_by, sample.decided_at = None, timezone.now()
    sample.save(update_fields=["sequence_stop", "status", "decided_by", "decided_at"])
    sample.keyword.status = Keyword.Status.ACCEPTED if stop.meets else Keyword.Status.REJECTED
    sample.keyword.save(update_fields=["status"])


def decide_keyword(sample: ScreeningSample, user, accept: bool) -> ScreeningSample:
    """The admin accepts or rejects a candidate once every sampled issue has a final verdict."""
    if not user.is_staff:
        raise PermissionDenied("Only an admin decides on keywords.")
    figures = sample_figures(sample)
    if figures.decided < figures.total:
        raise ScreeningError(f"{figures.total - figures.decided} sampled issues have no final verdict yet")
    with transaction.atomic():
        # A decision is taken once: a second click, or two admins at once, find it made and change nothing.
        sample = ScreeningSample.objects.select_for_update(of=("self",)).select_related("keyword").get(pk=sample.pk)
        if sample.status != ScreeningSample.Status.OPEN:
            raise ScreeningError(f"this sample was decided already ({sample.get_status_display().lower()}); "
                                 "nothing was changed")
        sample.status = ScreeningSample.Status.ACCEPTED if accept else ScreeningSample.Status.REJECTED
        sample.decided_by, sample.decided_at = user, timezone.now()
        sample.save(update_fields=["status", "decided_by", "decided_at"])
        sample.keyword.status = Keyword.Status.ACCEPTED if accept else Keyword.Status.REJECTED
        sample.keyword.save(update_fields=["status"])
    return sample


def review_summary(user, summary: Summary, sufficient: bool) -> SummaryReview:
    review, _ = SummaryReview.objects.update_or_create(summary=summary, reviewer=user,
                                                       defaults={"sufficient": sufficient})
    return review
