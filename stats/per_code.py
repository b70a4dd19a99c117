"""Pure: reliability per code, as qualitative researchers read it in ATLAS.ti and MAXQDA — for each category,
Krippendorff's alpha on "this code or not" (ATLAS.ti's alpha-binary) over every report with two or more
ratings, and Fleiss' per-category kappa over the reports every rater rated, each with its n and a bootstrap
interval over reports."""
from __future__ import annotations

from collections.abc import Sequence

from .figures import finite
from .lazy_numpy import np
from .matrices import distinct_rows
from .resampling import column_intervals, resample_weights

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


def _entry(method: str, n: int, value, interval: tuple[float | None, float | None] | None, undefined: str) -> dict:
    value = finite(value) if value is not None else None
    entry = {"method": method, "n": n, "value": value, "ci": [None, None], "undefined_because": ""}
    if value is None:
        entry["undefined_because"] = undefined
    elif interval is not None:
        entry["ci"] = list(interval)
    return entry


def _intervals(samples: list[np.ndarray]) -> list | None:
    return column_intervals(np.concatenate(samples)) if samples else None


def per_code(counts: np.ndarray, categories: Sequence[str], *, resamples: int = RESAMPLES, seed: int = 0) -> list[dict]:
    """One row per category used: its uses, alpha-binary and per-category kappa with n and intervals. `counts`
    is units × categories (rows may sum to different numbers: missing ratings)."""
    counts = np.asarray(counts)
    uses = counts.sum(axis=0)
    used = uses > 0
    categories = [c for c, u in zip(categories, used, strict=True) if u]
    if not used.all():
        uses, counts = uses[used], counts[:, used]
    m = counts.sum(axis=1)
    pairable = m >= 2
    # Copies only where some units are left out (usually none are).
    kept, mk = (counts, m) if pairable.all() else (counts[pairable], m[pairable])
    raters = int(m.max()) if len(m) else 0
    complete = mk == raters
    units, full = len(kept), int(complete.sum())
    alpha = kappa = None
    alpha_samples, kappa_samples = [], []
    if units:
        distinct, freq = distinct_rows(kept)
        parts = _alpha_parts(distinct, distinct.sum(axis=1, dtype=float))
        alpha = _alpha_binary(freq[None, :] @ parts)[0]
        if resamples:
            parts = parts.astype(np.float32)
            alpha_samples = [_alpha_binary(w @ parts) for w in resample_weights(freq, resamples, seed)]
    if full and raters >= 2:
        distinct, freq = distinct_rows(kept if full == units else kept[complete])
        parts = _kappa_parts(distinct, raters)
        kappa = _kappa_j(freq[None, :] @ parts, raters)[0]
        if resamples:
            parts = parts.astype(np.float32)
            kappa_samples = [_kappa_j(w @ parts, raters) for w in resample_weights(freq, resamples, seed)]
    alpha_ci, kappa_ci = _intervals(alpha_samples), _intervals(kappa_samples)
    # Per-category kappa rests on the reports every rater rated: with missing ratings, say how many it left.
    kappa_method = KAPPA_METHOD if full == units else \
        f"{KAPPA_METHOD}: {full} of {units} reports, {units - full} with a rating missing left out"
    rows = []
    for j, name in enumerate(categories):
        rows.append({
            "category": name, "uses": int(uses[j]),
            "alpha": _entry(ALPHA_METHOD, units, None if alpha is None else alpha[j], alpha_ci and alpha_ci[j],
                            "no report has two or more ratings" if not units else
                            "every rating is this code, or none is"),
            "kappa": _entry(kappa_method, full, None if kappa is None else kappa[j], kappa_ci and kappa_ci[j],
                            "no report was rated by every rater" if kappa is None else
                            "every rating is this code, or none is") | {"left_out": units - full},
        })
    return rows
