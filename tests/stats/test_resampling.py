"""Bootstrap resamples as weights over distinct rows: their distribution, their determinism, and sharing them
within one computation without changing a figure."""
import numpy as np
import pytest

from stats import resampling
from stats.coefficients import coefficients
from stats.kappa import bootstrap_kappa
from stats.matrices import distinct_rows
from stats.per_code import per_code
from stats.resampling import resample_weights, shared

FEW = np.array([600, 300, 100])  # few distinct rows: one multinomial per resample
MANY = np.array([1] * 400 + [3] * 50 + [2])  # many: report indices drawn and counted


def _all(freq, resamples, seed=0):
    return np.concatenate(list(resample_weights(freq, resamples, seed)))


def _counted_draws(monkeypatch) -> list:
    """The arguments of every draw made from here on."""
    calls = []
    real = resampling._draw
    monkeypatch.setattr(resampling, "_draw", lambda *args: calls.append(args) or real(*args))
    return calls


@pytest.mark.parametrize("freq", [FEW, MANY], ids=["few", "many"])
def test_each_resample_takes_n_reports_and_each_row_in_proportion(freq):
    weights = _all(freq, 1000)
    assert weights.shape == (1000, len(freq)) and weights.dtype == np.float32
    assert (weights.sum(axis=1) == freq.sum()).all()
    # E[w_r] = freq_r; the mean over 1,000 resamples is within a few standard errors of it.
    standard_error = np.sqrt(freq * (1 - freq / freq.sum()) / 1000)
    assert (np.abs(weights.mean(axis=0) - freq) < 5 * standard_error + 1e-9).all()


@pytest.mark.parametrize("freq", [FEW, MANY], ids=["few", "many"])
def test_fewer_resamples_are_the_first_of_more_and_a_seed_repeats(freq):
    assert np.array_equal(_all(freq, 200), _all(freq, 1000)[:200])
    assert np.array_equal(_all(freq, 600, seed=4), _all(freq, 600, seed=4))
    assert not np.array_equal(_all(freq, 600, seed=4), _all(freq, 600, seed=5))


def test_within_shared_a_repeated_request_draws_nothing_and_gives_the_same_weights(monkeypatch):
    alone = _all(MANY, 1000)
    calls = _counted_draws(monkeypatch)
    with shared():
        first, again, fewer = _all(MANY, 1000), _all(MANY, 1000), _all(MANY, 300)
        other_seed = _all(MANY, 1000, seed=1)
    assert len(calls) == 2  # seed 0 once, seed 1 once
    assert np.array_equal(first, alone) and np.array_equal(again, alone) and np.array_equal(fewer, alone[:300])
    assert not np.array_equal(other_seed, alone)
    _all(MANY, 1000)
    assert len(calls) == 3  # outside the block nothing is kept


def test_figures_computed_together_equal_figures_computed_alone():
    rng = np.random.default_rng(9)
    counts = np.stack([rng.multinomial(5, [0.6, 0.3, 0.1]) for _ in range(300)])
    alone = (bootstrap_kappa(counts, 500, seed=2), coefficients(counts, resamples=500, seed=2),
             per_code(counts, ["A", "B", "C"], resamples=200, seed=2))
    with shared():
        together = (bootstrap_kappa(counts, 500, seed=2), coefficients(counts, resamples=500, seed=2),
                    per_code(counts, ["A", "B", "C"], resamples=200, seed=2))
    assert together[0] == alone[0]
    assert {k: vars(v) for k, v in together[1].items()} == {k: vars(v) for k, v in alone[1].items()}
    assert together[2] == alone[2]


def test_remembered_distinct_rows_tell_matrices_of_the_same_bytes_but_another_shape_apart():
    wide = np.array([[1, 0, 1, 0], [1, 0, 1, 0]])
    narrow = wide.reshape(4, 2)
    with shared():
        rows_wide, freq_wide = distinct_rows(wide)
        rows_narrow, freq_narrow = distinct_rows(narrow)
    assert rows_wide.tolist() == [[1, 0, 1, 0]] and freq_wide.tolist() == [2]
    assert rows_narrow.tolist() == [[1, 0]] and freq_narrow.tolist() == [4]


def test_column_intervals_are_np_percentile_of_each_columns_finite_values():
    from stats.resampling import column_intervals

    rng = np.random.default_rng(3)
    values = rng.normal(size=(1000, 5)).astype(np.float32)
    values[::7, 1] = np.nan
    values[::3, 2] = np.inf
    values[:, 3] = np.nan
    values[:999, 4] = -np.inf  # one finite value
    found = column_intervals(values)
    for j, (low, high) in enumerate(found):
        column = values[:, j][np.isfinite(values[:, j])]
        if not len(column):
            assert (low, high) == (None, None)
            continue
        expected = np.percentile(column.astype(np.float64), [2.5, 97.5])
        assert np.allclose([low, high], expected, rtol=0, atol=1e-12), j


def test_prefetched_resamples_are_the_ones_drawn_on_demand_and_drawn_once(monkeypatch):
    alone = _all(MANY, 1000)
    calls = _counted_draws(monkeypatch)
    with shared():
        resampling.prefetch(MANY, 1000, 0)
        resampling.prefetch(MANY, 1000, 0)  # already under way: not drawn twice
        fetched, again = _all(MANY, 1000), _all(MANY, 300)
    assert len(calls) == 1
    assert np.array_equal(fetched, alone) and np.array_equal(again, alone[:300])
    resampling.prefetch(MANY, 1000, 0)  # outside a shared block: nothing is started
    assert len(calls) == 1


def test_a_shared_block_that_fails_leaves_no_drawing_thread_behind():
    import threading

    with pytest.raises(RuntimeError), shared():
        for seed in range(5):
            resampling.prefetch(MANY, 1000, seed)
        raise RuntimeError("a figure failed")
    assert not [t for t in threading.enumerate() if t.name.startswith("resamples")]


def test_a_prefetched_draw_that_fails_raises_where_its_resamples_are_asked_for(monkeypatch):
    def broken(*args):
        raise MemoryError("no room for the resamples")

    monkeypatch.setattr(resampling, "_draw", broken)
    with shared():
        resampling.prefetch(MANY, 1000, 0)
        with pytest.raises(MemoryError, match="no room"):
            _all(MANY, 1000)


def test_blas_runs_on_one_thread_inside_the_block_and_as_before_after_it():
    from threadpoolctl import threadpool_info

    def blas_threads():
        return [lib["num_threads"] for lib in threadpool_info() if lib["user_api"] == "blas"]

    before = blas_threads()
    with resampling.one_blas_thread():
        assert set(blas_threads()) <= {1}
    assert blas_threads() == before
