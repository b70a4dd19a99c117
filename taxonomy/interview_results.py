"""The ORM side of the interview statistics: rankings per question, per group and overall."""
from __future__ import annotations

from dataclasses import dataclass, field

from agreement.rankings import Concordance, Divergence, borda, kendalls_w, rank_matrix, spearman

from .interviews import ranking_items
from .models import Answer, GuideQuestion


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


def results_rows(study):
    for result in results(study):
        for group in result.groups:
            c = group.concordance
            for item in result.items:
                yield [result.question.node.code if result.question.node else "", group.group, group.participants,
                       item, round(group.mean_rank.get(item, 0), 4), group.borda.get(item, 0),
                       "" if c.w is None else round(c.w, 4), "" if c.chi2 is None else round(c.chi2, 4), c.df,
                       "" if c.p is None else c.p]


RESULT_COLUMNS = ["type", "group", "participants", "theme", "mean_rank", "borda", "kendalls_w", "chi2", "df", "p"]
