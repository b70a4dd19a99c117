"""Pure: bootstrap resamples of reports, as weights over their distinct count rows.

Reports with the same count row are interchangeable, so a resample of n reports is how many times each distinct
row is taken. With few distinct rows (good agreement) that is one multinomial draw per resample; with many (a
fine-grained level, thousands of distinct rows) a multinomial costs a binomial draw per row, and drawing n report
indices and counting them per row is cheaper and has the same distribution."""
from __future__ import annotations

from collections.abc import Iterator

import numpy as np

BATCH = 250  # resamples per batch: B × distinct rows float32 weights, tens of MB at 40,000 reports
# (B × n 32-bit indices must stay under 2³¹: 250 × 40,000 is 10⁷)


def resample_weights(freq: np.ndarray, resamples: int, rng: np.random.Generator) -> Iterator[np.ndarray]:
    """Batches of B × U float32 weights for U distinct rows occurring `freq` times among n = Σ freq reports."""
    freq = np.asarray(freq, dtype=np.int64)
    n, u = int(freq.sum()), len(freq)
    # Report → its distinct row (none needed when every row is distinct); 32-bit indices halve the memory traffic.
    owner = np.repeat(np.arange(u, dtype=np.int32), freq) if u < n else None
    for start in range(0, resamples, BATCH):
        b = min(BATCH, resamples - start)
        if u * 4 < n:
            yield rng.multinomial(n, freq / n, size=b).astype(np.float32)
            continue
        draws = rng.integers(0, n, size=(b, n), dtype=np.int32)
        if owner is not None:
            draws = owner[draws]
        draws += (np.arange(b, dtype=np.int32) * u)[:, None]
        yield np.bincount(draws.ravel(), minlength=b * u).reshape(b, u).astype(np.float32)
