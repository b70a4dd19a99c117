"""Pure: how many reports (or raters) are enough? From a figure's own count matrix, simulate studies of other
sizes drawn from the observed distribution and read off how wide Fleiss' kappa's 95 % interval would be.

More reports: a study of N reports is N reports drawn with replacement from the observed ones (each keeps its
raters' counts), so the interval narrows about as 1/√N. More raters: each simulated study draws its reports
anew and each report's m' ratings from a plausible share of the categories for it (`_kappas_with_raters`).
Both are simulations from what was seen, not promises: a codebook change or new kinds of reports move the
figures."""
from __future__ import annotations

from collections.abc import Sequence

from .figures import finite
from .kappa import agreement_parts
from .lazy_numpy import np
from .matrices import distinct_rows

SIMULATIONS = 400
FACTORS = (1, 1.5, 2, 3, 4, 6, 8, 12, 16, 24, 32)
EXTRA_RATERS = (1, 2, 3, 5)
RATER_UNITS = 2000  # reports sampled for the raters' simulation, which draws every rating anew
METHOD = ("simulation from the observed reports: {sims} simulated studies per size, the 2.5th to 97.5th "
          "percentile of their Fleiss' kappa; with more raters, each simulated study draws its reports anew and "
          "their ratings from each report's Dirichlet posterior (its counts plus the categories' overall shares, "
          "at the strength its Fleiss' kappa implies)")


def _width(kappas: np.ndarray) -> float | None:
    kappas = kappas[np.isfinite(kappas)]
    if len(kappas) < 2:
        return None
    low, high = np.percentile(kappas, [2.5, 97.5])
    return float(high - low)


def _kappas_of_size(rows: np.ndarray, freq: np.ndarray, size: int, sims: int, rng) -> np.ndarray:
    """Fleiss' kappa of `sims` studies of `size` reports drawn from the distinct rows (as bootstrap_kappa)."""
    m = rows[0].sum()
    p_u, _ = agreement_parts(rows)
    weights = rng.multinomial(size, freq / freq.sum(), size=sims).astype(float)
    with np.errstate(divide="ignore", invalid="ignore"):
        p_bar = weights @ p_u / size
        p_e = np.square((weights @ rows) / (size * m)).sum(axis=1)
        return (p_bar - p_e) / (1 - p_e)


def _kappas_with_raters(counts: np.ndarray, raters: Sequence[int], sims: int, rng) -> dict[int, np.ndarray]:
    """Fleiss' kappa of `sims` studies like this one with each number of `raters` per report. Each simulated study
    draws its reports anew (the report-to-report variation), and each report's ratings from a plausible share of
    the categories for it rather than its observed one: three ratings that agree do not make a report on which
    every further rater agrees. The plausible shares are the report's Dirichlet posterior, its counts plus a
    prior (the categories' overall shares, of strength s), where s is what makes reports agree as often as they
    do here: under a Dirichlet-multinomial two ratings of one report agree beyond chance by 1/(1 + s), which
    Fleiss' kappa estimates. Within a simulated study the larger panels add raters to the smaller ones, so the
    widths compare panels of different sizes on the same reports."""
    n = len(counts)
    shares = counts.sum(axis=0) / counts.sum()
    # The prior's strength: kappa near 0, a weak tie between a report's ratings; near 1 (or undefined, every
    # rating one category), a strong one. Kept within [0.01, 0.99] so that s stays finite and positive.
    kappa = _fleiss(counts)
    kappa = float(np.clip(kappa, 0.01, 0.99)) if np.isfinite(kappa) else 0.99
    strength = (1 - kappa) / kappa
    posterior = counts + strength * shares
    units = min(n, RATER_UNITS)
    sizes = sorted(raters)
    out = {size: np.empty(sims) for size in sizes}
    for s in range(sims):
        drawn_shares = rng.gamma(posterior[rng.integers(0, n, size=units)])
        drawn_shares /= drawn_shares.sum(axis=1, keepdims=True)
        panel, had = np.zeros(drawn_shares.shape, dtype=np.int64), 0
        for size in sizes:
            panel = panel + rng.multinomial(size - had, drawn_shares)
            had = size
            out[size][s] = _fleiss(panel)
    if n > RATER_UNITS:  # the spread of RATER_UNITS reports scaled to the study's own number (the 1/√N law)
        out = {size: k.mean() + (k - k.mean()) * np.sqrt(RATER_UNITS / n) for size, k in out.items()}
    return out


def _fleiss(counts: np.ndarray) -> float:
    p_u, p_j = agreement_parts(counts)
    p_e = np.square(p_j).sum()
    with np.errstate(divide="ignore", invalid="ignore"):
        return float((p_u.mean() - p_e) / (1 - p_e))


def simulate(counts: np.ndarray, *, sims: int = SIMULATIONS, seed: int = 0) -> dict:
    """`counts`: reports × categories, every report rated by the same number of raters (Fleiss' matrix). The
    interval's width now, at each size and with more raters; none of it depends on the width wanted."""
    counts = np.asarray(counts, dtype=np.int64)
    result = {"reports": len(counts), "method": METHOD.format(sims=sims), "now": None, "sizes": [], "raters": [],
              "undefined_because": ""}
    if len(counts) < 2 or counts.shape[1] < 2 or counts[0].sum() < 2:
        result["undefined_because"] = "needs two or more reports, raters and categories"
        return result
    rng = np.random.default_rng(seed)
    rows, freq = distinct_rows(counts)
    n = len(counts)
    for factor in FACTORS:
        size = int(round(n * factor))
        # A width of 0 (every resample gives the same kappa) is a width, not a missing one.
        width = _width(_kappas_of_size(rows, freq, size, sims, rng))
        result["sizes"].append({"reports": size, "more": size - n,
                                "width": finite(width) if width is not None else None})
    result["now"] = result["sizes"][0]["width"]
    m = int(counts[0].sum())
    with_raters = _kappas_with_raters(counts, [m + extra for extra in EXTRA_RATERS], sims, rng)
    narrowest = None
    for size, kappas in with_raters.items():
        width = _width(kappas)
        width = finite(width) if width is not None else None
        # A larger panel never widens the interval: where simulation noise shows a larger panel's width above a
        # smaller one's (by a few per cent, at most), the smaller panel's stands.
        if width is not None and narrowest is not None:
            width = min(width, narrowest)
        narrowest = width if width is not None else narrowest
        result["raters"].append({"raters": size, "width": width})
    return result


def degenerate(width: float | None, reports: int) -> bool:
    """An interval that says nothing: of zero width (every resample gave the same kappa: the reports do not yet
    differ enough to show how the kappa varies, which is not certainty), or over fewer reports than the stop
    rule's first look."""
    return width is not None and (width <= 0 or reports < LOOK_EVERY)


def enough(simulated: dict, target_width: float) -> int | None:
    """The first size simulated whose interval is `target_width` wide or narrower, and not degenerate; None if
    none is."""
    return next((s["reports"] for s in simulated["sizes"] if s["width"] is not None
                 and not degenerate(s["width"], s["reports"]) and s["width"] <= target_width), None)


def plan(counts: np.ndarray, target_width: float, *, sims: int = SIMULATIONS, seed: int = 0) -> dict:
    """`simulate`, with the first size that reaches `target_width`."""
    result = simulate(counts, sims=sims, seed=seed)
    return result | {"target_width": target_width, "enough_reports": enough(result, target_width)}


# The planner's stopping rule. Its width decides, never the kappa's value: stopping when an interval is narrow
# enough keeps about the coverage a fixed size has, where stopping when the kappa looks good would not (checked
# against studies of known kappa in tests/stats/test_stop_rule.py).
LOOK_EVERY = 50
STOP_RULE = ("keep labeling until the 95 % interval of the kappa you will report is narrower than {width}, "
             "looking after every {every} reports every rater has labeled, then close the round; the interval's "
             "width decides, never the kappa's value")


def stop_now(width_now: float | None, target_width: float, reports: int) -> bool:
    """Whether the stopping rule says to close the round: the interval is known, not degenerate, and no wider
    than wanted."""
    return width_now is not None and not degenerate(width_now, reports) and width_now <= target_width
