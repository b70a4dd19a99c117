"""A machine in each person's seat, from the panel's counts found once: every figure equals the one built from
that seat's own table (the way each was built before, at a cost of people² × reports)."""
from __future__ import annotations

import numpy as np
import pytest

from machines.measures import _figure, _panel_figures
from machines.replacing import seats

CODES = ["A.1", "A.2", "B.1", "C.1", "C.2", "C.10", "NR"]


@pytest.mark.parametrize("seed", range(6))
def test_each_seat_is_what_its_own_table_gives(seed):
    rng = np.random.default_rng(seed)
    reports = list(range(1000, 1000 + int(rng.integers(2, 60))))
    people = int(rng.integers(2, 8))
    # Some people and the machine leave reports unrated; some categories only one rater uses.
    used = CODES[: int(rng.integers(2, len(CODES) + 1))]

    def rater(missing: float) -> dict:
        return {r: (None if rng.random() < missing else str(rng.choice(used))) for r in reports}

    columns = [rater(0.15 if seed % 2 else 0.0) for _ in range(people)]
    machine = rater(0.1)
    found = list(seats(columns, machine, reports, level="theme", type_code="C", resamples=200, seed=seed))
    assert len(found) == people
    for i, (fleiss, alpha) in enumerate(found):
        expected = _panel_figures([machine if j == i else c for j, c in enumerate(columns)], reports,
                                  level="theme", type_code="C", resamples=200, seed=seed)
        assert (_figure(fleiss), _figure(alpha)) == expected, i
