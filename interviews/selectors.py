"""Reads of a study's interviews: participants, the themes a ranking ranks, the quotes a codebook change may
cite, and the rankings aggregated per question and group (the statistics themselves are stats.rankings)."""
from __future__ import annotations

from dataclasses import dataclass, field

from django.db.models import Count

from concord.ids import parse_id
from stats.rankings import Concordance, Divergence, borda, kendalls_w, rank_matrix, spearman

from .models import Answer, GuideQuestion, Participant, Quote


def participants_of(study):
    return Participant.objects.filter(study=study).annotate(n_quotes=Count("sessions__quotes"))


def quote_of(study, value: str) -> Quote | None:
    """The interview quote a proposal or codebook change cites, if `value` is the id of one of this study's."""
    pk = parse_id(value)
    return Quote.objects.filter(pk=pk, session__participant__study=study).first() if pk is not None else None


def ranking_items(question: GuideQuestion) -> list[str]:
    """The codes a ranking question ranks: the live themes of its type."""
    if question.node is None:
        return []
    return list(question.node.children.filter(retired_at__isnull=True).order_by("position").values_list("code",
                                                                                                         flat=True))


@dataclass
class GroupResult:
    group: str
    participants: int
    mean_rank: dict[str, float]
    borda: dict[str, int]
    concordance: Concordance


@dataclass
class QuestionResult:
    question: GuideQuestion
    items: list[str]
    groups: list[GroupResult] = field(default_factory=list)
    divergence: Divergence | None = None  # between the first two groups (users and developers)


def _group_result(group: str, orders: list[list[str]], items: list[str]) -> GroupResult:
    ranks = rank_matrix(orders, items)
    mean = {item: float(ranks[:, i].mean()) for i, item in enumerate(items)} if len(orders) else {}
    return GroupResult(group, len(orders), mean, borda(orders, items), kendalls_w(ranks))


def results(study) -> list[QuestionResult]:
    """Every ranking question's answers, per participant group and for everyone."""
    out = []
    questions = GuideQuestion.objects.filter(guide__study=study, kind=GuideQuestion.Kind.RANKING).select_related(
        "node")
    for question in questions:
        items = ranking_items(question)
        by_group: dict[str, list[list[str]]] = {}
        for group, order in Answer.objects.filter(question=question).values_list("session__participant__group",
                                                                                 "order"):
            by_group.setdefault(group, []).append(order)
        result = QuestionResult(question, items)
        for group in sorted(by_group):
            result.groups.append(_group_result(group, by_group[group], items))
        everyone = [o for orders in by_group.values() for o in orders]
        result.groups.append(_group_result("all", everyone, items))
        named = [g for g in result.groups if g.group != "all" and g.participants]
        if len(named) >= 2:
            result.divergence = spearman(named[0].mean_rank, named[1].mean_rank)
        out.append(result)
    return out
