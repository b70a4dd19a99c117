"""Pure: a share estimated three ways — from people's labels only, from a machine's only, and prediction-powered
(PPI++: Angelopoulos, Duchi and Zrnic 2023), which corrects the machine's share over every report with the
people's labels of a random few, so that its interval stays valid however wrong the machine is.

A share is the mean of an indicator: y[i] is 1 where a person's label of report i is the category, f[i] the same
for the machine's label (or its probability). The prediction-powered estimate is

    θ = λ·mean(f over the reports people did not label) + mean(y − λ·f over those they did),

with the power-tuning parameter λ in [0, 1]: λ = 0 is the people's share alone, λ = 1 is plain PPI. λ is the
reference implementation's (ppi_py's `ppi_mean_ci`, power-tuned and clipped), except where that would give a wider
interval than the people's alone on these data, where it is 0: the estimate is never less precise than the
people's labels by themselves, which is the promise that makes it safe to show beside them.

Reports people label need not be a uniform sample: under the confidence-driven design (Zrnic and Candès, "Active
statistical inference", 2024; Gligorić et al., NAACL 2025) report i is labeled with a known probability π[i],
higher where the machine is less sure, and `active` weighs each labeled report by 1/π[i]."""
from __future__ import annotations

from dataclasses import dataclass
from statistics import NormalDist

from .lazy_numpy import np

CONFIDENCE = 0.95
# The share of the uniform design mixed into the confidence-driven one, so that no report's chance of being
# labeled is near zero: a weight of 1/π on a report the machine was sure of but got wrong would swamp the rest.
# On the study's release, with a machine as good as its annotators and 5 % labeled, a fifth left the rarest
# theme's intervals covering 84 % of the time; a half keeps every theme at 98 %, 3 % wider than a fifth and
# still a fifth narrower than the uniform design.
UNIFORM_FLOOR = 0.5


@dataclass(frozen=True)
class Estimate:
    value: float
    low: float
    high: float
    se: float
    n: int  # reports with a person's label
    unlabeled: int  # reports with a machine label only
    lam: float | None = None  # the power-tuning parameter; None where no machine label enters

    @property
    def width(self) -> float:
        return self.high - self.low

    def covers(self, truth: float) -> bool:
        return self.low <= truth <= self.high

    @property
    def bounded(self) -> tuple[float, float]:
        """The interval within [0, 1], where a share is: what a page shows (it covers what the raw one does)."""
        return max(0.0, self.low), min(1.0, self.high)


def z_value(confidence: float) -> float:
    return NormalDist().inv_cdf(1 - (1 - confidence) / 2)


def _interval(value: float, se: float, n: int, unlabeled: int, lam, confidence: float) -> Estimate:
    half = z_value(confidence) * se
    return Estimate(float(value), float(value - half), float(value + half), float(se), n, unlabeled,
                    None if lam is None else float(lam))


def human_only(y, confidence: float = CONFIDENCE) -> Estimate | None:
    """The people's share with its normal (CLT) interval, as ppi_py's `classical_mean_ci`: the interval the
    prediction-powered one is compared with."""
    y = np.asarray(y, dtype=float)
    if len(y) < 2:
        return None
    return _interval(y.mean(), y.std() / np.sqrt(len(y)), len(y), 0, None, confidence)


def machine_only(f, confidence: float = CONFIDENCE) -> Estimate | None:
    """The machine's share over every report it labeled. Its interval is the sampling error of the machine's own
    share: the machine's bias against people is not in it, so it says nothing about the people's share."""
    f = np.asarray(f, dtype=float)
    if len(f) < 2:
        return None
    return _interval(f.mean(), f.std() / np.sqrt(len(f)), 0, len(f), None, confidence)


def _columns(a):
    a = np.asarray(a, dtype=float)
    return a[:, None] if a.ndim == 1 else a


def _ppi_se(y, f_labeled, f_unlabeled, lam):
    """Column by column: the standard error of the estimate with each column's λ."""
    n, big_n = len(y), len(f_unlabeled)
    imputed = (lam * f_unlabeled).std(axis=0) ** 2 / big_n if big_n else 0.0
    return np.sqrt(imputed + (y - lam * f_labeled).std(axis=0) ** 2 / n)


def tuned_lambda(y, f_labeled, f_unlabeled):
    """ppi_py's power-tuning parameter for a mean, column by column: Cov(y, f) over the labeled reports against
    (1 + n/N) times the variance of f over all reports, clipped to [0, 1]."""
    y, f_labeled, f_unlabeled = _columns(y), _columns(f_labeled), _columns(f_unlabeled)
    n, big_n = len(y), len(f_unlabeled)
    if big_n == 0:
        return np.zeros(y.shape[1])
    spread = np.var(np.concatenate([f_labeled, f_unlabeled]), axis=0, ddof=1)
    together = np.mean((y - y.mean(axis=0)) * (f_labeled - f_labeled.mean(axis=0)), axis=0)
    with np.errstate(divide="ignore", invalid="ignore"):
        lam = together / ((1 + n / big_n) * spread)
    return np.clip(np.where(spread > 0, lam, 0.0), 0.0, 1.0)


def ppi_columns(y, f_labeled, f_unlabeled, lam=None):
    """`ppi` for many shares at once, one per column (the indicators of every category of a level): arrays of
    the estimates, their standard errors and λ."""
    y, f_labeled, f_unlabeled = _columns(y), _columns(f_labeled), _columns(f_unlabeled)
    if len(y) != len(f_labeled):
        raise ValueError(f"{len(y)} people's labels but {len(f_labeled)} machine labels of the same reports")
    if lam is None:
        lam = tuned_lambda(y, f_labeled, f_unlabeled)
        alone = _ppi_se(y, f_labeled, f_unlabeled, 0.0)
        lam = np.where(_ppi_se(y, f_labeled, f_unlabeled, lam) > alone, 0.0, lam)
    lam = np.broadcast_to(np.asarray(lam, dtype=float), (y.shape[1],))
    imputed = lam * f_unlabeled.mean(axis=0) if len(f_unlabeled) else 0.0
    value = imputed + (y - lam * f_labeled).mean(axis=0)
    return value, _ppi_se(y, f_labeled, f_unlabeled, lam), lam


def ppi(y, f_labeled, f_unlabeled, lam: float | None = None, confidence: float = CONFIDENCE) -> Estimate | None:
    """The prediction-powered share: `y` and `f_labeled` are the people's and the machine's labels of the reports
    people labeled (a uniform random sample of the reports), `f_unlabeled` the machine's of the rest. With `lam`
    None, λ is tuned (see the module); a given `lam` is used as it is. None under two labeled reports."""
    if len(y) < 2:
        return None
    value, se, lam = ppi_columns(y, f_labeled, f_unlabeled, lam)
    return _interval(value[0], se[0], len(y), len(f_unlabeled), lam[0], confidence)


def active_columns(y, f, labeled, chance):
    """`active` for many shares at once, one per column: arrays of the estimates, standard errors and λ."""
    f, y = _columns(f), _columns(y)
    labeled = np.asarray(labeled, dtype=bool)
    chance = np.asarray(chance, dtype=float)
    if not (len(f) == len(labeled) == len(chance) == len(y)):
        raise ValueError("every report needs its machine label, whether people labeled it, and its chance")
    if np.any(labeled & ~(chance > 0)):
        raise ValueError("a labeled report had no chance of being labeled")
    weight = np.where(labeled, 1.0 / np.where(labeled, chance, 1.0), 0.0)[:, None]
    a = f * (1 - weight)  # each report's contribution is λ·a + b
    b = np.where(labeled[:, None], y, 0.0) * weight
    spread = a.var(axis=0)
    together = np.mean((a - a.mean(axis=0)) * (b - b.mean(axis=0)), axis=0)
    with np.errstate(divide="ignore", invalid="ignore"):
        lam = np.clip(np.where(spread > 0, -together / spread, 0.0), 0.0, 1.0)
    parts = lam * a + b
    return parts.mean(axis=0), parts.std(axis=0) / np.sqrt(len(parts)), lam


def active(y, f, labeled, chance, confidence: float = CONFIDENCE) -> Estimate | None:
    """The prediction-powered share when report i was labeled by people with known probability `chance[i]`:
    `f` is the machine's label of every report, `labeled` says which people labeled, and `y` holds their label
    there (any value elsewhere). Each report contributes λ·f + (y − λ·f)·labeled/chance; λ in [0, 1] minimises
    the variance of those contributions, so the interval is never wider than with λ = 0 (people's labels alone,
    weighted by the design)."""
    labeled = np.asarray(labeled, dtype=bool)
    if labeled.sum() < 2:
        return None
    value, se, lam = active_columns(y, f, labeled, chance)
    return _interval(value[0], se[0], int(labeled.sum()), int(len(labeled) - labeled.sum()), lam[0], confidence)


def design_weights(uncertainty, floor: float = UNIFORM_FLOOR):
    """Each report's relative chance of being labeled under the confidence-driven design (mean 1): its machine
    uncertainty against the mean, mixed with the uniform design at `floor`. For a category label predicted with
    probability p of being right, the expected squared error of every share's indicator together is 2(1 − p),
    so the uncertainty that minimises the variance is √(1 − p) (Zrnic and Candès 2024, for a mean)."""
    u = np.asarray(uncertainty, dtype=float)
    mean = u.mean() if len(u) else 0.0
    relative = u / mean if mean > 0 else np.ones_like(u)
    return (1 - floor) * relative + floor


def sequential_poisson(weights, budget: int, rng):
    """Which reports people label under the confidence-driven design with about `budget` labels, and each
    report's chance of it: every report draws U uniform, the queue takes reports by U/weight, smallest first
    (Ohlsson's sequential Poisson sampling), and stopping after `budget` reports labels each report with chance
    min(1, ξ·weight), ξ the (budget + 1)-th smallest key. Returns (order of the queue, labeled, chance)."""
    w = np.asarray(weights, dtype=float)
    keys = rng.random(len(w)) / w
    order = np.argsort(keys, kind="stable")
    labeled = np.zeros(len(w), dtype=bool)
    labeled[order[:budget]] = True
    if budget >= len(w):
        return order, labeled, np.ones(len(w))
    return order, labeled, np.minimum(1.0, keys[order[budget]] * w)


# A normal interval is not to be trusted below this many labeled reports in the category and as many outside it.
MIN_EACH_SIDE = 5


@dataclass(frozen=True)
class ThreeWays:
    """One share, from people's labels alone, from the machine's alone, and prediction-powered; `enough` says
    whether people's labels hold at least MIN_EACH_SIDE reports in and out of the category."""

    people: Estimate | None
    machine: Estimate | None
    powered: Estimate | None
    inside: int  # people's labeled reports in the category
    of: int  # people's labeled reports in the whole the share is of

    @property
    def enough(self) -> bool:
        return self.inside >= MIN_EACH_SIDE and self.of - self.inside >= MIN_EACH_SIDE


def _ratio(num, den, num_f, den_f, rest_num, rest_den, lam: float):
    """θ = (λ·mean of the rest's f_num + mean of (y_num − λ·f_num)) / (the same of the denominators), and its
    standard error from the linearised estimating equation y_num − θ·y_den (the PPI of an M-estimator)."""
    big_n = len(rest_num)

    def powered(y, f, rest):
        return (lam * rest.mean() if big_n else 0.0) + (y - lam * f).mean()

    top, bottom = powered(num, num_f, rest_num), powered(den, den_f, rest_den)
    if not bottom > 0:
        return None
    theta = top / bottom
    z, g, g_rest = num - theta * den, num_f - theta * den_f, rest_num - theta * rest_den
    return theta, _ppi_se(z[:, None], g[:, None], g_rest[:, None], lam)[0] / bottom


def three_ways(y_num, y_den, f_num, f_den, labeled, confidence: float = CONFIDENCE) -> ThreeWays:
    """A share of a whole — a theme's share of its type, a type's of a year's reports — three ways. Arrays over
    every report the machine labeled: `f_num`/`f_den` 1 where the machine's label is in the category / in the
    whole; `y_num`/`y_den` the same for people's label where `labeled`, anything elsewhere. A share of all
    reports has a whole of ones. People's share is Σy_num/Σy_den over the labeled reports; the powered one
    corrects the machine's with them, λ tuned as `ppi` does on the linearised share, and falls back to people's
    alone where that would be wider."""
    labeled = np.asarray(labeled, dtype=bool)
    y_num, y_den, f_num, f_den = (np.asarray(a, dtype=float) for a in (y_num, y_den, f_num, f_den))
    num, den, num_f, den_f = y_num[labeled], y_den[labeled], f_num[labeled], f_den[labeled]
    rest_num, rest_den = f_num[~labeled], f_den[~labeled]
    inside, of = int(num.sum()), int(den.sum())
    n, big_n = int(labeled.sum()), int((~labeled).sum())

    def estimate(result, people: int, machine: int, lam) -> Estimate | None:
        if result is None:
            return None
        value, se = result
        return _interval(value, se, people, machine, lam, confidence)

    people = estimate(_ratio(num, den, num_f, den_f, rest_num, rest_den, 0.0), n, 0, None) if n >= 2 else None
    everything = estimate(_ratio(f_num, f_den, f_num, f_den, f_num[:0], f_den[:0], 0.0), 0, len(f_num), None) \
        if len(f_num) >= 2 else None
    powered = None
    if people is not None:
        at_one = _ratio(num, den, num_f, den_f, rest_num, rest_den, 1.0)
        lam = 0.0
        if at_one is not None and big_n:
            theta = at_one[0]
            lam = float(tuned_lambda(num - theta * den, num_f - theta * den_f, rest_num - theta * rest_den)[0])
        tuned = _ratio(num, den, num_f, den_f, rest_num, rest_den, lam)
        if tuned is None or tuned[1] > people.se:
            tuned, lam = (people.value, people.se), 0.0
        powered = estimate(tuned, n, big_n, lam)
    return ThreeWays(people, everything, powered, inside, of)


def _weighted_ratio(y_num, y_den, f_num, f_den, weight, lam: float):
    """Under a design with known chances: every report contributes λ·f + (y − λ·f)·weight, the weight 1/chance
    where people labeled it and 0 elsewhere, to the part and to the whole; θ is their ratio, and its standard
    error that of the linearised contributions."""
    def part(y, f):
        return lam * f + (y - lam * f) * weight

    top, bottom = part(y_num, f_num).mean(), part(y_den, f_den).mean()
    if not bottom > 0:
        return None
    theta = top / bottom
    parts = part(y_num - theta * y_den, f_num - theta * f_den)
    return theta, float(parts.std() / np.sqrt(len(parts)) / bottom)


def three_ways_by_design(y_num, y_den, f_num, f_den, labeled, chance,
                         confidence: float = CONFIDENCE) -> ThreeWays:
    """`three_ways` where report i was labeled by people with known chance `chance[i]` (the confidence-driven
    design): people's share is their labels weighed by 1/chance (λ = 0), the powered one tunes λ in [0, 1] to
    the least variance of the linearised contributions, and falls back to people's where that is wider."""
    labeled = np.asarray(labeled, dtype=bool)
    y_num, y_den, f_num, f_den, chance = (np.asarray(a, dtype=float) for a in (y_num, y_den, f_num, f_den, chance))
    y_num, y_den = np.where(labeled, y_num, 0.0), np.where(labeled, y_den, 0.0)
    if np.any(labeled & ~(chance > 0)):
        raise ValueError("a labeled report had no chance of being labeled")
    weight = np.where(labeled, 1.0 / np.where(labeled, chance, 1.0), 0.0)
    n, big_n = int(labeled.sum()), int((~labeled).sum())
    inside, of = int(y_num[labeled].sum()), int(y_den[labeled].sum())

    def estimate(result, people: int, machine: int, lam) -> Estimate | None:
        return None if result is None else _interval(result[0], result[1], people, machine, lam, confidence)

    alone = _weighted_ratio(y_num, y_den, f_num, f_den, weight, 0.0) if n >= 2 else None
    everything = _ratio(f_num, f_den, f_num, f_den, f_num[:0], f_den[:0], 0.0) if len(f_num) >= 2 else None
    powered = None
    if alone is not None:
        lam = 0.0
        at_one = _weighted_ratio(y_num, y_den, f_num, f_den, weight, 1.0)
        if at_one is not None:
            theta = at_one[0]
            a = (f_num - theta * f_den) * (1 - weight)  # each contribution is λ·a + b
            b = (y_num - theta * y_den) * weight
            spread = a.var()
            if spread > 0:
                lam = float(np.clip(-np.mean((a - a.mean()) * (b - b.mean())) / spread, 0.0, 1.0))
        tuned = _weighted_ratio(y_num, y_den, f_num, f_den, weight, lam)
        if tuned is None or tuned[1] > alone[1]:
            tuned, lam = alone, 0.0
        powered = estimate(tuned, n, big_n, lam)
    return ThreeWays(estimate(alone, n, 0, None), estimate(everything, 0, len(f_num), None), powered, inside, of)
