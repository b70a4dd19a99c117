"""A jury of a study's machine raters: which reports it would take from people, and what that would cost, against
the people's labels of the study's agreement round (stats.jury holds the rule and the figures)."""
from __future__ import annotations

from annotation.models import Study
from stats.jury import ALPHA_MIN, CONFIDENCE_MIN, MIN_JURY, cost, delegate, promise_kept

from .models import MachineRater
from .selectors import panel, type_votes


class JuryError(ValueError):
    pass


def _figure(figure) -> dict:
    return {"value": figure.value, "ci": [figure.ci_low, figure.ci_high], "reports": figure.n_reports,
            "raters": figure.n_raters, "undefined_because": figure.undefined_because}


def measure_jury(study: Study, raters: list[MachineRater], *, alpha_min: float = ALPHA_MIN,
                 confidence_min: float = CONFIDENCE_MIN, resamples: int = 1000) -> dict:
    """The jury at type level, on the reports people labeled in the agreement round: the machines' agreement with
    each other, the reports delegated, the jury's accuracy against people's plurality there, and Fleiss' kappa
    among people on all reports and on those left to them."""
    if len(raters) < MIN_JURY:
        raise JuryError(f"a jury needs {MIN_JURY} machine raters or more, not {len(raters)}")
    if not (0 <= alpha_min <= 1 and 0 <= confidence_min <= 1):
        raise JuryError("the thresholds are numbers from 0 to 1")
    humans = panel(study).humans
    ids = sorted({issue for labels in humans.values() for issue in labels})
    people = [[labels[i][0] if i in labels else None for labels in humans.values()] for i in ids]
    try:
        votes, sure = type_votes(raters, ids)
    except LookupError as exc:
        raise JuryError(f"{exc.args[0]} has no run that succeeded") from None
    made = delegate(votes, sure, alpha_min, confidence_min)
    found = cost(people, made, resamples=resamples, seed=study.seed)
    accuracy = found.accuracy
    return {"jury": [r.name for r in raters], "level": "type", "alpha_min": alpha_min,
            "confidence_min": confidence_min, "machine_alpha": made.alpha, "fit": made.fit,
            "reports": found.reports, "delegated": found.delegated, "share": found.share,
            "accuracy": {"value": accuracy.value, "ci": [accuracy.low, accuracy.high], "n": accuracy.n},
            "promise_kept": promise_kept(accuracy, confidence_min),
            "kappa_all": _figure(found.kappa_all), "kappa_people": _figure(found.kappa_people),
            "delegated_reports": [i for i, sent in zip(ids, made.delegated, strict=True) if sent]}
