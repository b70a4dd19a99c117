"""Pure: how many reports (or raters) are enough? From a figure's own count matrix, simulate studies of other
sizes drawn from the observed distribution and read off how wide Fleiss' kappa's 95 % interval would be.

More reports: a study of N reports is N reports drawn with replacement from the observed ones (each keeps its
raters' counts), so the interval narrows about as 1/√N. More raters: each report's ratings are drawn from
that report's observed shares of the categories, m' per report. Both are simulations from what was seen, not
promises: a codebook change or new kinds of reports move the figures."""
from __future__ import annotations

from concord.lazy_numpy import np

from .figures import finite
from .kappa import agreement_parts
from .matrices import distinct_rows

SIMULATIONS = 400
FACTORS = (1, 1.5, 2, 3, 4, 6, 8, 12, 16, 24, 32)
EXTRA_RATERS = (1, 2, 3, 5)
RATER_UNITS = 2000  # reports sampled for the raters' simulation, which draws every rating anew
METHOD = ("simulation from the observed reports: {sims} simulated studies per size, the 2.5th to 97.5th "
          "percentile of their Fleiss' kappa")


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


def _kappas_with_raters(counts: np.ndarray, raters: int, sims: int, rng) -> np.ndarray:
    picked = counts[rng.integers(0, len(counts), size=min(len(counts), RATER_UNITS))]
    shares = picked / picked.sum(axis=1, keepdims=True)
    out = np.empty(sims)
    for s in range(sims):
        drawn = rng.multinomial(raters, shares)
        p_u, p_j = agreement_parts(drawn)
        p_e = np.square(p_j).sum()
        with np.errstate(divide="ignore", invalid="ignore"):
            out[s] = (p_u.mean() - p_e) / (1 - p_e)
    # Scale the spread of RATER_UNITS reports to the study's own number of reports (the 1/√N law).
    return out if len(counts) <= RATER_UNITS else out.mean() + (out - out.mean()) * np.sqrt(RATER_UNITS / len(counts))


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
    for extra in EXTRA_RATERS:
        width = _width(_kappas_with_raters(counts, m + extra, max(100, sims // 2), rng))
        result["raters"].append({"raters": m + extra, "width": finite(width) if width is not None else None})
    return result


def enough(simulated: dict, target_width: float) -> int | None:
    """The first size simulated whose interval is `target_width` wide or narrower; None if none is."""
    return next((s["reports"] for s in simulated["sizes"] if s["width"] is not None and s["width"] <= target_width),
                None)


def plan(counts: np.ndarray, target_width: float, *, sims: int = SIMULATIONS, seed: int = 0) -> dict:
    """`simulate`, with the first size that reaches `target_width`."""
    result = simulate(counts, sims=sims, seed=seed)
    return result | {"target_width": target_width, "enough_reports": enough(result, target_width)}
