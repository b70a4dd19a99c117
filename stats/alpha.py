"""Pure: Krippendorff's alpha for nominal data, which allows missing ratings (Krippendorff 2011)."""
from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence

from .figures import Figure, finite
from .lazy_numpy import np
from .matrices import counts_of, distinct_rows, rating_table, same_category_pairs


def unit_counts(ratings: Mapping[Hashable, Sequence[str | None]]) -> tuple[list[Hashable], list[str], np.ndarray]:
    """Units × categories counts of the values given; missing ratings (None) are simply not counted."""
    table = rating_table(ratings)
    return table.subjects, table.categories, counts_of(table).astype(float)


def nominal_alpha(counts: np.ndarray, freq: np.ndarray | None = None) -> float | None:
    """Alpha from a units × categories count matrix, or from distinct rows and their frequencies `freq`; units
    with fewer than two values are not pairable."""
    pairable = counts.sum(axis=1) >= 2
    if not pairable.any():
        return None
    # Units with the same counts contribute alike: sums over the distinct rows, each weighted by its units.
    if freq is None:
        rows, freq = distinct_rows(counts if pairable.all() else counts[pairable])
    else:
        rows, freq = counts[pairable], freq[pairable]
    m = rows.sum(axis=1)
    # Coincidence matrix o_ck = Σ_u n_uc (n_uk − [c = k]) / (m_u − 1). Alpha needs only its row sums,
    # n_c = Σ_u n_uc, and its diagonal's sum, Σ_u Σ_c n_uc (n_uc − 1) / (m_u − 1): no product of the matrices.
    n_c = (freq @ rows).astype(np.float64)
    n = float(n_c.sum())
    observed_disagreement = n - float(freq @ (same_category_pairs(rows) / (m - 1)))
    expected_disagreement = (n * n - np.square(n_c).sum()) / (n - 1)
    if expected_disagreement == 0:
        return None
    return finite(1 - observed_disagreement / expected_disagreement)


def alpha_figure(ratings: Mapping[Hashable, Sequence[str | None]], *, level: str, type: str = "") -> Figure:
    units, categories, counts = unit_counts(ratings)
    return alpha_counts_figure(units, categories, counts, level=level, type=type)


def alpha_counts_figure(units: Sequence[Hashable], categories: list[str], counts: np.ndarray, *, level: str,
                        type: str = "", inverse: np.ndarray | None = None) -> Figure:
    """With `inverse`, `counts` holds distinct rows and unit i's row is counts[inverse[i]]."""
    freq = None if inverse is None else np.bincount(inverse, minlength=len(counts))
    rows_m = counts.sum(axis=1)
    m = (rows_m if inverse is None else rows_m[inverse]) if len(units) else np.zeros(0)
    used = counts.sum(axis=0) > 0 if len(units) else np.zeros(len(categories), dtype=bool)
    categories = [c for c, u in zip(categories, used, strict=True) if u]
    left_out = [(units[i], "fewer than two ratings") for i in np.flatnonzero(m < 2)]
    figure = Figure(method="Krippendorff's alpha, nominal (missing ratings allowed)", level=level, type=type,
                    n_reports=len(units) - len(left_out), n_raters=int(m.max()) if len(m) else 0,
                    categories=categories, left_out=left_out)
    if figure.n_reports == 0:
        figure.undefined_because = "no report has two or more ratings"
    elif len(categories) < 2:
        figure.undefined_because = "every rating is the same single category, so there is no disagreement to expect"
    else:
        figure.value = nominal_alpha(counts[:, used] if not used.all() else counts, freq)
        if figure.value is None:
            figure.undefined_because = "expected disagreement is zero"
    return figure
