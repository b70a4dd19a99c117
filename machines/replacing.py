"""Pure: the panel's agreement with a machine in each person's seat, one seat at a time, at a cost linear in the
number of people.

Building each panel anew (a table of every report × every rater, once per seat) cost people² × reports: 107
annotators over 2,000 reports took 14.7 s, and a study of 206 did not finish. The panel's counts are found once
here; a seat's panel is those counts with its person's rating taken out and the machine's put in, each a
report × category update. Every figure equals the one built from its own table, as the tests check: the same
counts, the same categories in the same order, the same resamples."""
from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence

from stats.alpha import alpha_counts_figure
from stats.figures import Figure
from stats.kappa import fleiss_matrix_figure
from stats.lazy_numpy import np
from stats.matrices import CountMatrix
from taxonomy.codes import sort_key


def seats(columns: Sequence[Mapping[int, str | None]], machine: Mapping[int, str | None], reports: Sequence[int],
          *, level: str, type_code: str, resamples: int, seed: int) -> Iterator[tuple[Figure, Figure]]:
    """For each column in turn, Fleiss' kappa (reports every rater rated) and Krippendorff's alpha (any two) of
    the panel with `machine` in that column's place."""
    categories = sorted({v for column in (*columns, machine) for r in reports if (v := column.get(r)) is not None},
                        key=sort_key)
    index = {c: i for i, c in enumerate(categories)}
    n, k, raters = len(reports), len(categories), len(columns)

    def codes_of(column: Mapping[int, str | None]) -> np.ndarray:
        return np.fromiter((index.get(column.get(r), -1) if column.get(r) is not None else -1 for r in reports),
                           dtype=np.int64, count=n)

    people = [codes_of(column) for column in columns]
    mine = codes_of(machine)
    base = np.zeros((n, k), dtype=np.int64)
    given = np.zeros(n, dtype=np.int64)
    for codes in people:
        rated = codes >= 0
        base[np.flatnonzero(rated), codes[rated]] += 1
        given += rated
    machine_rated = mine >= 0
    rows_m = np.flatnonzero(machine_rated)
    for codes in people:
        counts = base.copy()
        rated = codes >= 0
        counts[np.flatnonzero(rated), codes[rated]] -= 1
        counts[rows_m, mine[machine_rated]] += 1
        ratings = given - rated + machine_rated
        kept = ratings == raters
        kept_counts = counts[kept]
        used = kept_counts.sum(axis=0) > 0
        matrix = CountMatrix(
            subjects=[r for r, keep in zip(reports, kept.tolist(), strict=True) if keep],
            categories=[c for c, u in zip(categories, used.tolist(), strict=True) if u],
            counts=kept_counts if used.all() else kept_counts[:, used],
            left_out=[(reports[i], f"rated by {ratings[i]} of {raters} raters") for i in np.flatnonzero(~kept)])
        yield (fleiss_matrix_figure(matrix, level=level, type=type_code, resamples=resamples, seed=seed),
               alpha_counts_figure(list(reports), categories, counts, level=level, type=type_code))
