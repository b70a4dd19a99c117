"""A standing decision carried to another study: the same machine may take one annotator's place there, on the
evidence it was decided on. The other study's sentinels watch it from the start, against the sentinels of the
study the evidence came from."""
from __future__ import annotations

from django.db import IntegrityError, transaction

from annotation.models import Membership, Study
from annotation.permissions import can_manage_seeing_labels
from annotation.services.seats import lock_study
from concord.audit import record as audit
from concord.textcheck import fitted
from taxonomy.models import Category

from ..models import MachineRater, ReplacementDecision
from .decisions import DecisionError, watch_kept


def _types(codebook_ids) -> dict[int, set[str]]:
    """The live type codes of each codebook, in one query."""
    found: dict[int, set[str]] = {i: set() for i in codebook_ids}
    for codebook, code in Category.objects.filter(codebook__in=found, level=Category.Level.TYPE,
                                                  retired_at__isnull=True).values_list("codebook", "code"):
        found[codebook].add(code)
    return found


def targets(decision: ReplacementDecision, user) -> list[Study]:
    """The studies the decision may be carried to by `user`: another study they run and see the labels of, not
    closed, whose codebook has the same types (the evidence is about those types and no others), where a rater
    of its name has no standing decision at type level."""
    source = decision.rater.study
    holding = ReplacementDecision.objects.filter(rater__name=decision.rater.name, level="type",
                                                 withdrawn_at__isnull=True).values("rater__study")
    found = Study.objects.exclude(pk=source.pk).exclude(phase=Study.Phase.CLOSED).exclude(pk__in=holding) \
        .order_by("name")
    if not user.is_staff:
        found = found.filter(memberships__user=user, memberships__role=Membership.Role.LEAD)
    found = list(found)
    types = _types({source.codebook_id} | {s.codebook_id for s in found})
    return [s for s in found if types[s.codebook_id] == types[source.codebook_id]
            and can_manage_seeing_labels(user, s)]


def carry(decision: ReplacementDecision, *, to: Study, by, reason: str) -> ReplacementDecision:
    """Record in `to` that a rater like the decision's (its kind and settings, so the same machine) may replace one
    annotator at type level there, with the figures it was decided on frozen beside it and where they came from.
    The rater is made in `to` (or one of the same name and settings is used); it rates `to`'s reports when its
    run is started, and the decision is applied in `to`'s independent round like any other."""
    reason = fitted((reason or "").strip(), "reason", 5000)
    if not reason:
        raise DecisionError("reason", "say why the evidence from this study holds for the other one")
    if decision.withdrawn_at is not None:
        raise DecisionError("", "the decision was withdrawn; nothing was carried")
    if decision.level != "type":
        raise DecisionError("level", "only a decision at type level is carried: one below it holds for the reports "
                                     "of one type, known only once people have labeled them")
    if to not in targets(decision, by):
        if ReplacementDecision.objects.filter(rater__study=to, rater__name=decision.rater.name, level="type",
                                              withdrawn_at__isnull=True).exists():
            raise DecisionError("", f"a decision for {decision.rater.name} at type level stands in {to.name} "
                                    "already (a double submit, or someone else meanwhile)")
        raise DecisionError("study", "a study you run, not closed, whose codebook has the same types as this one")
    watched = watch_kept(decision)
    if watched is None:
        raise DecisionError("", "the decision's sentinel watch is still being measured; carry it once the page "
                                "shows it holding")
    if watched.below:
        raise DecisionError("", "the machine's agreement on this study's sentinels fell below what it was decided on; "
                                "a decision the watch flags is not carried")
    source: MachineRater = decision.rater
    # The study whose figures they are: a decision carried again keeps its evidence's first study.
    origin = decision.figures.get("carried_from") or {
        "study": source.study_id, "study_name": source.study.name, "decision": decision.pk,
        "decided_by": decision.decided_by.username, "decided_at": decision.decided_at.isoformat()}
    origin = origin | {"carried_by": by.username}
    try:
        with transaction.atomic():
            lock_study(to.pk)
            rater = MachineRater.objects.filter(study=to, name=source.name).first()
            if rater is None:
                rater = MachineRater.objects.create(
                    study=to, name=source.name, kind=source.kind, training=source.training,
                    settings=source.settings, api_key=source.api_key, created_by=by)
                audit("machine rater added", by, to, rater=rater.name, kind=rater.kind, carried_from=source.study_id)
            elif (rater.kind, rater.settings, rater.training) != (source.kind, source.settings, source.training):
                raise DecisionError("study", f"{to.name} has a machine rater called {source.name!r} with other "
                                             "settings: the evidence is about this one; rename one of them first")
            carried = ReplacementDecision.objects.create(
                rater=rater, level="type", type_code="", epsilon=decision.epsilon,
                figures=decision.figures | {"carried_from": origin}, reason=reason,
                sentinel_share=decision.sentinel_share, sentinel_seed=to.seed, decided_by=by)
            audit("machine decision carried", by, source.study_id, rater=source.name, to=to.pk)
            audit("machine decision recorded", by, to, rater=rater.name, level="type", epsilon=decision.epsilon,
                  sentinel_share=decision.sentinel_share, carried_from=source.study_id)
            return carried
    except IntegrityError:
        raise DecisionError("", f"a decision for {source.name} at type level stands in {to.name} already (a double "
                                "submit, or someone else meanwhile)") from None
