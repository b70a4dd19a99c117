"""Pure: chance-corrected agreement coefficients that differ only in their chance agreement, for any number of
raters and missing ratings (Gwet 2014, Handbook of Inter-Rater Reliability, ch. 2 and 4; as irrCAC computes them).

Fleiss' kappa takes chance from the categories' shares, so when one category dominates (most reports are bugs)
chance agreement nears 1 and kappa collapses even where raters almost always agree: the prevalence paradox.
Gwet's AC1 and Brennan–Prediger's coefficient take chance from the number of categories instead, and stay near
the observed agreement. Shown side by side, a reader sees whether a low kappa is disagreement or prevalence."""
from __future__ import annotations

from dataclasses import dataclass

from .figures import finite
from .lazy_numpy import np
from .matrices import distinct_rows, same_category_pairs
from .resampling import bootstrap

RESAMPLES = 1000
METHODS = {
    "fleiss": "Fleiss' kappa (chance from the categories' shares; Gwet's form for missing ratings)",
    "ac1": "Gwet's AC1 (chance from the spread over the categories)",
    "brennan_prediger": "Brennan–Prediger (chance 1/q, q the categories used)",
    # Gwet recommends every category raters could choose; with 75 sub-themes and a few used, the two part ways.
    "brennan_prediger_codebook": "Brennan–Prediger (chance 1/q, q the categories the codebook offers)",
}


@dataclass
class Coefficient:
    name: str
    value: float | None
    observed: float | None  # pa
    chance: float | None  # pe
    ci_low: float | None = None
    ci_high: float | None = None
    n_units: int = 0
    n_categories: int = 0
    undefined_because: str = ""

    @property
    def method(self) -> str:
        return METHODS[self.name]

    def as_dict(self) -> dict:
        return {"name": self.name, "method": self.method, "value": self.value, "observed": self.observed,
                "chance": self.chance, "ci": [self.ci_low, self.ci_high], "n": self.n_units,
                "categories": self.n_categories, "undefined_because": self.undefined_because}


@dataclass
class _Rows:
    """The distinct count rows of the units with a rating, how many units share each, and per row, side by side,
    what every coefficient is a weighted mean of: its observed agreement, whether it is pairable (two or more
    ratings), a one, and its category shares. A figure over units is the same weighted sum over rows (distinct
    rows are fewer), and one product gives every sum a weighting needs."""

    freq: np.ndarray
    parts: np.ndarray  # rows × (3 + categories)

    @classmethod
    def of(cls, counts: np.ndarray, freq: np.ndarray | None = None) -> _Rows:
        rated = counts.sum(axis=1) >= 1
        if not rated.all():  # a copy only where some unit has no rating (usually none)
            counts, freq = counts[rated], None if freq is None else freq[rated]
        rows, freq = distinct_rows(counts) if freq is None else (counts, freq)
        r = rows.sum(axis=1, dtype=np.float64)
        parts = np.empty((len(rows), 3 + rows.shape[1]))
        with np.errstate(divide="ignore", invalid="ignore"):
            parts[:, 0] = np.where(r >= 2, same_category_pairs(rows) / (r * (r - 1)), 0.0)
            np.divide(rows, r[:, None], out=parts[:, 3:])
        parts[:, 1], parts[:, 2] = r >= 2, 1
        return cls(freq, parts)

    @staticmethod
    def chance(sums: np.ndarray, q: int, offered: int | None = None) -> tuple[np.ndarray, np.ndarray]:
        """From weights @ parts (one row per weighting): observed agreement, and chance agreement as Fleiss, AC1
        and Brennan–Prediger take it, and Brennan–Prediger over the `offered` categories (B × 3 or 4)."""
        with np.errstate(divide="ignore", invalid="ignore"):
            observed = sums[:, 0] / sums[:, 1]
            pi = sums[:, 3:] / sums[:, 2:3]
        columns = [np.square(pi).sum(axis=1), (pi * (1 - pi)).sum(axis=1) / (q - 1), np.full(len(sums), 1 / q)]
        if offered:
            columns.append(np.full(len(sums), 1 / offered))
        return observed, np.stack(columns, axis=1)


def coefficients(counts: np.ndarray, *, categories: int | None = None, offered: int | None = None,
                 resamples: int = RESAMPLES, seed: int = 0, freq: np.ndarray | None = None) -> dict[str, Coefficient]:
    """Fleiss' kappa, AC1 and Brennan–Prediger from a units × categories count matrix (a row holds how many
    raters gave each category; rows may sum to different numbers), or from distinct rows and their frequencies
    `freq`. `categories` is q, the number of categories (default: the matrix's columns); with `offered`, the
    number the codebook offers, Brennan–Prediger over those too. Intervals: percentile bootstrap over units."""
    counts = np.asarray(counts)
    q = categories or counts.shape[1]
    offered = max(offered, q) if offered else None  # a retired category still used counts among those offered
    names = [name for name in METHODS if offered or name != "brennan_prediger_codebook"]
    pairable = counts.sum(axis=1) >= 2
    n_units = (int(pairable.sum()) if freq is None else int(freq @ pairable)) if counts.size else 0
    out = {name: Coefficient(name, None, None, None, n_units=n_units,
                             n_categories=offered if name == "brennan_prediger_codebook" else q) for name in names}
    why = "no report has two or more ratings" if n_units == 0 else \
        "one category only: there is nothing to disagree on" if q < 2 else None
    if why:
        for c in out.values():
            c.undefined_because = why
        return out
    rows = _Rows.of(counts, freq)
    _set_values(out, *rows.chance(rows.freq[None, :] @ rows.parts, q, offered))
    if resamples:
        _bootstrap(rows, q, offered, out, resamples, seed)
    return out


def _set_values(out: dict[str, Coefficient], observed_all: np.ndarray, chance_all: np.ndarray) -> None:
    """Each coefficient's observed and chance agreement and its value, from the one row of sums."""
    observed, chance = float(observed_all[0]), chance_all[0]
    for i, c in enumerate(out.values()):
        c.observed, c.chance = observed, float(chance[i])
        if chance[i] >= 1:
            c.undefined_because = "chance agreement is total: every rating is the same category"
            continue
        c.value = finite((observed - chance[i]) / (1 - chance[i]))


def _bootstrap(rows: _Rows, q: int, offered: int | None, out: dict[str, Coefficient], resamples: int,
               seed: int) -> None:
    """Percentile intervals over units resampled with replacement (stats.resampling.bootstrap: each
    coefficient's parts are weighted sums of per-row values), set when the resamples are drawn."""

    def finish(sums: np.ndarray) -> None:
        observed, chance = _Rows.chance(sums, q, offered)
        with np.errstate(divide="ignore", invalid="ignore"):
            values = (observed[:, None] - chance) / (1 - chance)
        for i, name in enumerate(out):
            column = values[:, i][np.isfinite(values[:, i])]
            if out[name].value is not None and len(column):
                out[name].ci_low, out[name].ci_high = (float(v) for v in np.percentile(column, [2.5, 97.5]))

    bootstrap(rows.freq, rows.parts, resamples, seed, finish)


def diverge(coefficients_: dict[str, Coefficient], *, gap: float = 0.1) -> str:
    """Why kappa and AC1 part, in words, when they differ by more than `gap`; "" when they agree."""
    kappa, ac1 = coefficients_["fleiss"], coefficients_["ac1"]
    if kappa.value is None or ac1.value is None or abs(kappa.value - ac1.value) <= gap:
        return ""
    if kappa.value < ac1.value:
        return (f"Fleiss' kappa ({kappa.value:.3f}) is well below AC1 ({ac1.value:.3f}) although the raters agree "
                f"on {100 * kappa.observed:.1f} % of pairs: one category dominates, so kappa's chance agreement "
                f"({kappa.chance:.3f}) is high (the prevalence paradox). AC1 and Brennan–Prediger take chance "
                "from the number of categories and are not moved by it.")
    return (f"Fleiss' kappa ({kappa.value:.3f}) is above AC1 ({ac1.value:.3f}): the categories are used evenly, "
            "so AC1's chance agreement is the higher one.")
