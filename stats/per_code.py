"""Pure: reliability per code, as qualitative researchers read it in ATLAS.ti and MAXQDA — for each category,
Krippendorff's alpha on "this code or not" (ATLAS.ti's alpha-binary) over every report with two or more
ratings, and Fleiss' per-category kappa over the reports every rater rated, each with its n and a bootstrap
interval over reports."""
from __future__ import annotations

from collections.abc import Sequence

from .figures import finite
from .lazy_numpy import np
from .matrices import distinct_rows
from .resampling import bootstrap, column_intervals

# Per-code intervals are many (one per category and figure); 200 resamples keep a 40,000-report dashboard fast.
RESAMPLES = 200
ALPHA_METHOD = "Krippendorff's alpha on this code or not (alpha-binary), reports with two or more ratings"
KAPPA_METHOD = "Fleiss' per-category kappa (1971), reports rated by every rater"


def _alpha_parts(hits: np.ndarray, m: np.ndarray) -> np.ndarray:
    """Per unit, side by side: 2·h·(m − h)/(m − 1) per code, h per code, and m: alpha-binary's sums are these
    weighted, from one product that reads the weights once."""
    k = hits.shape[1]
    parts = np.empty((len(hits), 2 * k + 1))
    parts[:, :k] = 2 * hits * (m[:, None] - hits) / (m[:, None] - 1)  # m ≥ 2: pairable units only
    parts[:, k:2 * k], parts[:, 2 * k] = hits, m
    return parts


def _alpha_binary(sums: np.ndarray) -> np.ndarray:
    """Nominal alpha of binary data per weighting and code, from weights @ _alpha_parts (B × 2K + 1):
    o_10 = Σ w · 2·h·(m − h)/(m − 1), n_1 = Σ w · h, n = Σ w · m; α = 1 − o_10 / e_10."""
    k = (sums.shape[1] - 1) // 2
    disagree, n1, n = sums[:, :k], sums[:, k:2 * k], sums[:, 2 * k:]
    with np.errstate(divide="ignore", invalid="ignore"):
        return 1 - disagree / (2 * n1 * (n - n1) / (n - 1))


def _kappa_parts(hits: np.ndarray, m: int) -> np.ndarray:
    """Per unit of m ratings, side by side: h·(m − h) per code, h per code, and 1."""
    k = hits.shape[1]
    parts = np.empty((len(hits), 2 * k + 1))
    parts[:, :k] = hits * (m - hits)
    parts[:, k:2 * k], parts[:, 2 * k] = hits, 1
    return parts


def _kappa_j(sums: np.ndarray, m: int) -> np.ndarray:
    """Fleiss' (1971) per-category kappas per weighting, from weights @ _kappa_parts (B × 2K + 1)."""
    k = (sums.shape[1] - 1) // 2
    spread, hits, n = sums[:, :k], sums[:, k:2 * k], sums[:, 2 * k:]
    with np.errstate(divide="ignore", invalid="ignore"):
        p = hits / (n * m)
        return 1 - spread / (n * m * (m - 1) * p * (1 - p))


def _from_spread(m: int, n: int):
    """For units all rated by m raters, n of them: alpha-binary and per-category kappa per weighting from the
    sums of h and of h·(m − h) per code (B × 2K, weights summing to n)."""

    def alpha(sums: np.ndarray) -> np.ndarray:
        k = sums.shape[1] // 2
        return _alpha_binary(np.hstack([2 * sums[:, k:] / (m - 1), sums[:, :k], np.full((len(sums), 1), m * n)]))

    def kappa(sums: np.ndarray) -> np.ndarray:
        k = sums.shape[1] // 2
        return _kappa_j(np.hstack([sums[:, k:], sums[:, :k], np.full((len(sums), 1), n)]), m)

    return alpha, kappa


def _entry(method: str, n: int, value, undefined: str) -> dict:
    value = finite(value) if value is not None else None
    entry = {"method": method, "n": n, "value": value, "ci": [None, None], "undefined_because": ""}
    if value is None:
        entry["undefined_because"] = undefined
    return entry


def _intervals(rows: list[dict], figure: str, values):
    """What sets each defined figure's interval from the resamples' sums, `values` turning B sums into B × K."""

    def finish(sums: np.ndarray) -> None:
        for row, interval in zip(rows, column_intervals(values(sums)), strict=True):
            if row[figure]["value"] is not None:
                row[figure]["ci"] = list(interval)

    return finish


def per_code(counts: np.ndarray, categories: Sequence[str], *, resamples: int = RESAMPLES, seed: int = 0,
             freq: np.ndarray | None = None) -> list[dict]:
    """One row per category used: its uses, alpha-binary and per-category kappa with n and intervals. `counts`
    is units × categories (rows may sum to different numbers: missing ratings), or distinct rows with `freq`
    their frequencies."""
    counts = np.asarray(counts)
    weights = np.ones(len(counts), dtype=np.int64) if freq is None else np.asarray(freq)
    uses = weights @ counts if len(counts) else counts.sum(axis=0)
    used = uses > 0
    categories = [c for c, u in zip(categories, used, strict=True) if u]
    if not used.all():
        uses, counts = uses[used], counts[:, used]
    m = counts.sum(axis=1)
    pairable = m >= 2
    # Copies only where some units are left out (usually none are).
    kept, mk, wk = (counts, m, weights) if pairable.all() else (counts[pairable], m[pairable], weights[pairable])
    raters = int(m.max()) if len(m) else 0
    complete = mk == raters
    units, full = int(wk.sum()), int(wk[complete].sum())

    def grouped(rows: np.ndarray, w: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        return distinct_rows(rows) if freq is None else (rows, w)

    if units and full == units and raters >= 2:
        both, alpha, kappa = _complete(grouped(kept, wk), raters, units)
        alpha_rows = kappa_rows = None
    else:
        both = None
        alpha_rows, alpha = _alpha_figures(grouped(kept, wk)) if units else (None, None)
        kappa_rows, kappa = _kappa_figures(grouped(kept[complete], wk[complete]), raters) \
            if full and raters >= 2 else (None, None)
    rows = _rows(categories, uses, units, full, alpha, kappa)
    if resamples:
        _resample(rows, resamples, seed, raters, units, both, alpha_rows, kappa_rows)
    return rows


def _complete(grouped: tuple[np.ndarray, np.ndarray], raters: int, units: int):
    """Every unit rated by all m raters: both figures are sums of h and of h·(m − h) per code, n being fixed
    (whole numbers, exact), so both are resampled from one set of columns. Those columns with their
    frequencies, and alpha and kappa per code."""
    distinct, often = grouped
    k = distinct.shape[1]
    # The resamples multiply single-precision columns, which hold these small whole numbers exactly: made so
    # at once, not as whole numbers first (a million reports' distinct rows are ~190,000 × 2 × 76).
    columns = np.empty((len(distinct), 2 * k), dtype=np.float32)
    columns[:, :k] = distinct
    spread = distinct * (raters - distinct)
    columns[:, k:] = spread
    sums = np.r_[often @ distinct, often @ spread][None, :].astype(np.float64)
    del spread
    alpha, kappa = (f(sums)[0] for f in _from_spread(raters, units))
    return (often, columns), alpha, kappa


def _alpha_figures(grouped: tuple[np.ndarray, np.ndarray]):
    """Alpha-binary per code with missing ratings, and the rows it is resampled over."""
    distinct, often = grouped
    alpha_rows = often, _alpha_parts(distinct, distinct.sum(axis=1, dtype=float))
    return alpha_rows, _alpha_binary(often[None, :] @ alpha_rows[1])[0]


def _kappa_figures(grouped: tuple[np.ndarray, np.ndarray], raters: int):
    """Per-category kappa on the reports every rater rated, and the rows it is resampled over."""
    distinct, often = grouped
    kappa_rows = often, _kappa_parts(distinct, raters)
    return kappa_rows, _kappa_j(often[None, :] @ kappa_rows[1], raters)[0]


def _rows(categories, uses, units: int, full: int, alpha, kappa) -> list[dict]:
    # Per-category kappa rests on the reports every rater rated: with missing ratings, say how many it left.
    kappa_method = KAPPA_METHOD if full == units else \
        f"{KAPPA_METHOD}: {full} of {units} reports, {units - full} with a rating missing left out"
    alpha_why = "no report has two or more ratings" if not units else "every rating is this code, or none is"
    kappa_why = "no report was rated by every rater" if kappa is None else "every rating is this code, or none is"
    return [{
        "category": name, "uses": int(uses[j]),
        "alpha": _entry(ALPHA_METHOD, units, None if alpha is None else alpha[j], alpha_why),
        "kappa": _entry(kappa_method, full, None if kappa is None else kappa[j], kappa_why)
        | {"left_out": units - full},
    } for j, name in enumerate(categories)]


def _resample(rows, resamples: int, seed: int, raters: int, units: int, both, alpha_rows, kappa_rows) -> None:
    """Each defined figure's bootstrap interval, from the rows its figure was computed over."""
    if both:
        to_alpha, to_kappa = _from_spread(raters, units)
        alpha_ci, kappa_ci = _intervals(rows, "alpha", to_alpha), _intervals(rows, "kappa", to_kappa)
        bootstrap(*both, resamples, seed, lambda sums: (alpha_ci(sums), kappa_ci(sums)))
    if alpha_rows:
        bootstrap(*alpha_rows, resamples, seed, _intervals(rows, "alpha", _alpha_binary))
    if kappa_rows:
        bootstrap(*kappa_rows, resamples, seed, _intervals(rows, "kappa", lambda sums: _kappa_j(sums, raters)))
