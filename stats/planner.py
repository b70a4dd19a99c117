"""Pure: how many reports (or raters) are enough? From a figure's own count matrix, simulate studies of other
sizes drawn from the observed distribution and read off how wide Fleiss' kappa's 95 % interval would be.

More reports: a study of N reports is N reports drawn with replacement from the observed ones (each keeps its
raters' counts), so the interval narrows about as 1/√N. More raters: each simulated study draws its reports
anew and each report's m' ratings from a plausible share of the categories for it (`_kappas_with_raters`).
Both are simulations from what was seen, not promises: a codebook change or new kinds of reports move the
figures."""
from __future__ import annotations

from collections.abc import Sequence

from . import rating_models
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
          "their ratings from what each report's counts imply under two models, its own Dirichlet share of the "
          "categories or one right answer with the raters' accuracy (Dawid and Skene), each used as far as "
          "Akaike's criterion supports it, the widths fitted to a + b/r + c/r²")


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


def _kappas_with_raters(counts: np.ndarray, model, raters: Sequence[int], sims: int, rng) -> dict[int, np.ndarray]:
    """Fleiss' kappa of `sims` studies like this one with each number of `raters` per report. Each simulated study
    draws its reports anew (the report-to-report variation), and each report's ratings from a plausible share of
    the categories for it under `model` (`stats.rating_models`) rather than its observed one: three ratings that
    agree do not make a report on which every further rater agrees. Within a simulated study the larger panels
    add raters to the smaller ones, so the widths compare panels of different sizes on the same reports."""
    n = len(counts)
    units = min(n, RATER_UNITS)
    sizes = sorted(raters)
    out = {size: np.empty(sims) for size in sizes}
    for s in range(sims):
        drawn_shares = model.shares(rng.integers(0, n, size=units), rng)
        panel, had = np.zeros(drawn_shares.shape, dtype=np.int64), 0
        for size in sizes:
            panel = panel + rng.multinomial(size - had, drawn_shares)
            had = size
            out[size][s] = _fleiss(panel)
    if n > RATER_UNITS:  # the spread of RATER_UNITS reports scaled to the study's own number (the 1/√N law)
        out = {size: k.mean() + (k - k.mean()) * np.sqrt(RATER_UNITS / n) for size, k in out.items()}
    return out


def _widths_with_raters(counts: np.ndarray, panels: Sequence[int], sims: int, rng) -> list[float | None]:
    """Each panel's width: under each rating model the counts support, simulated and fitted to the law widths
    follow, then averaged by the models' weights. Averaging widths, not pooling the simulated kappas, keeps two
    models' slightly different centres from widening the interval neither of them predicts."""
    m = int(counts[0].sum())
    supported = rating_models.fit(counts, _fleiss(counts))
    per_model = [(weight, _widths_by_panel(
        _kappas_with_raters(counts, model, [m, *panels], max(sims // len(supported), 2), rng), panels))
        for weight, model in supported]
    if any(width is None for _, widths in per_model for width in widths):
        return per_model[0][1]
    return [sum(weight * widths[i] for weight, widths in per_model) for i in range(len(panels))]


def _widths_by_panel(kappas: dict[int, np.ndarray], panels: Sequence[int]) -> list[float | None]:
    """Each panel's width, read off the law the simulated widths follow rather than off each alone. A kappa's
    variance over reports rated by r raters is the spread of the reports' own agreement plus a rating noise that
    falls as 1/r and 1/r² (the pairs within a report), so width² = a + b/r + c/r² with a, b, c ≥ 0: fitted by
    non-negative least squares to every simulated panel (the present one included), the widths fall with more
    raters because agreement does, not because a larger panel's width is capped by a smaller one's, and the
    percentiles' own noise (a few per cent at 400 simulations) is averaged out over the panels."""
    simulated = {size: _width(k) for size, k in kappas.items()}
    known = {size: w for size, w in simulated.items() if w is not None and np.isfinite(w)}
    if len(known) < 3:
        return [simulated.get(size) for size in panels]
    from scipy.optimize import nnls

    sizes = np.array(sorted(known), dtype=float)
    design = np.column_stack([np.ones_like(sizes), 1 / sizes, 1 / sizes ** 2])
    coefficients, _ = nnls(design, np.square([known[int(s)] for s in sizes]))
    return [float(np.sqrt(np.array([1, 1 / size, 1 / size ** 2]) @ coefficients)) for size in panels]


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
    panels = [m + extra for extra in EXTRA_RATERS]
    for size, width in zip(panels, _widths_with_raters(counts, panels, sims, rng), strict=True):
        result["raters"].append({"raters": size, "width": finite(width) if width is not None else None})
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
