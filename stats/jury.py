"""Pure: delegating reports to a jury of machines, and what it costs.

The rule of Ahmed, Devanbu, Treude and Pradel ("Can LLMs replace manual annotation of software engineering
artifacts?", MSR 2025) in two steps: a level is fit for machines only where the machines agree with each other
(Krippendorff's alpha among them at least ALPHA_MIN), and then a report goes to the machines only where the jury
agrees on it and is sure (here: every member gives the same label, each with confidence at least
CONFIDENCE_MIN); every other report goes to people.

A confidence of 0.8 promises a label right four times in five only from a calibrated member: members sure of
more than they know agree on the same wrong label as readily as on the right one. So before anything is
delegated, the promise is checked against people (`promise_kept`): on the reports the jury would take that
people have labeled, its label must be people's plurality label at least CONFIDENCE_MIN of the time, by the
lower end of the 95 % interval, not by the point estimate.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from .alpha import nominal_alpha
from .figures import Figure
from .kappa import fleiss_figure
from .lazy_numpy import np
from .proportions import Rate, rate
from .ties import modal_label

# Alpha 0.5: the machines agree with each other at least moderately, the line below which the paper found a task
# unfit for them. Confidence 0.8: a member sure of its label four times in five.
ALPHA_MIN = 0.5
CONFIDENCE_MIN = 0.8
MIN_JURY = 3


def machine_alpha(votes: Sequence[Sequence[str | None]]) -> float | None:
    """Krippendorff's nominal alpha among the machines (`votes`: one sequence per machine, a label per report,
    None where it gave none)."""
    if not votes:
        return None
    n = len(votes[0])
    categories = sorted({v for member in votes for v in member if v is not None})
    index = {c: i for i, c in enumerate(categories)}
    counts = np.zeros((n, len(categories)))
    for member in votes:
        for report, value in enumerate(member):
            if value is not None:
                counts[report, index[value]] += 1
    return nominal_alpha(counts) if len(categories) else None


@dataclass
class Delegation:
    alpha: float | None
    fit: bool  # whether the level passes the machine-machine gate
    delegated: list[bool]  # per report
    labels: list[str | None]  # per report: the jury's label where it is unanimous


def delegate(votes: Sequence[Sequence[str | None]], sure: Sequence[Sequence[float | None]],
             alpha_min: float = ALPHA_MIN, confidence_min: float = CONFIDENCE_MIN) -> Delegation:
    """Which reports go to the machines: none unless the level passes the gate; then those on which every member
    gives the same label, each at least `confidence_min` sure of it."""
    if len(votes) < MIN_JURY:
        raise ValueError(f"a jury needs {MIN_JURY} machines or more, not {len(votes)}")
    alpha = machine_alpha(votes)
    fit = alpha is not None and alpha >= alpha_min
    n = len(votes[0])
    labels, delegated = [], []
    for report in range(n):
        given = [member[report] for member in votes]
        same = given[0] if given[0] is not None and all(g == given[0] for g in given) else None
        confident = all(s[report] is not None and s[report] >= confidence_min for s in sure)
        labels.append(same)
        delegated.append(fit and same is not None and confident)
    return Delegation(alpha, fit, delegated, labels)


@dataclass
class Cost:
    reports: int
    delegated: int
    accuracy: Rate  # the jury's label against people's plurality, on the delegated reports where it is not tied
    kappa_all: Figure  # Fleiss' kappa among people on every report: the study without delegation
    kappa_people: Figure  # among people on the reports still sent to them: what the study reports with it

    @property
    def share(self) -> float | None:
        return self.delegated / self.reports if self.reports else None


def checked(people: Sequence[Sequence[str | None]], delegation: Delegation) -> Rate:
    """The jury's label against people's plurality (`people`: per report, each person's label or None), on the
    reports it would take where people's labels do not tie."""
    right = judged = 0
    for given, sent, label in zip(people, delegation.delegated, delegation.labels, strict=True):
        plurality = modal_label([g for g in given if g is not None])
        if sent and plurality is not None:
            judged += 1
            right += label == plurality
    return rate(right, judged)


def promise_kept(accuracy: Rate, confidence_min: float = CONFIDENCE_MIN) -> bool:
    """Whether people's labels show the jury right at least as often as its threshold promises: the lower end of
    the 95 % interval of `accuracy` (from `checked`) is `confidence_min` or more. With no report to check on, or
    too few (16 right of 16 is the fewest that can show 0.8), it is not shown, so nothing is delegated."""
    return accuracy.low is not None and accuracy.low >= confidence_min


def cost(people: Sequence[Sequence[str | None]], delegation: Delegation, resamples: int = 1000,
         seed: int = 0) -> Cost:
    """What delegating costs, against people's labels of the same reports (`people`: per report, each person's
    label or None). Agreement with and without delegation is Fleiss' kappa among people (reports every person
    labeled) on all reports, and on those left to people: the reports a confident jury agrees on are the easy
    ones, so what remains agrees less, and that is the figure a study that delegated would report."""
    everyone = {i: list(given) for i, given in enumerate(people)}
    left = {i: given for i, given in everyone.items() if not delegation.delegated[i]}
    n_raters = max((len(g) for g in people), default=0)
    return Cost(len(people), sum(delegation.delegated), checked(people, delegation),
                fleiss_figure(_complete(everyone), level="type", n_raters=n_raters, resamples=resamples, seed=seed),
                fleiss_figure(_complete(left), level="type", n_raters=n_raters, resamples=resamples, seed=seed))


def _complete(ratings: dict[int, list[str | None]]) -> dict[int, list[str]]:
    """The reports every person labeled (Fleiss' kappa counts raters per report)."""
    return {i: given for i, given in ratings.items() if all(g is not None for g in given)}
