"""Bootstrap resamples as weights over distinct rows: their distribution (that of n reports drawn one by one),
their determinism, the intervals they give against a simulation with known truth, and sharing them within one
computation without changing a figure."""
import threading

import numpy as np
import pytest

from stats import resampling
from stats.coefficients import coefficients
from stats.kappa import bootstrap_kappa, fleiss_matrix_figure
from stats.matrices import CountMatrix, distinct_rows
from stats.per_code import per_code
from stats.resampling import bootstrap, resample_weights, shared

FEW = np.array([600, 300, 100])  # every row frequent: one multinomial per resample
MANY = np.array([1] * 400 + [3] * 50 + [2])  # rows of one report and of a few, drawn by report index
MIXED = np.array([600, 40, 9, *[1] * 300, *[3] * 50, *[2] * 20, 7])  # all three at once


@pytest.fixture(params=["whole batches", "a resample at a time"])
def drawing(request, monkeypatch):
    """Both ways a batch is drawn: whole (few rows) and a resample at a time (many)."""
    if request.param == "a resample at a time":
        monkeypatch.setattr(resampling, "SMALL", 0)
    return request.param


def _all(freq, resamples, seed=0):
    return np.concatenate(list(resample_weights(freq, resamples, seed)))


def _runs(monkeypatch) -> list:
    """The groups whose resamples are drawn from here on."""
    runs = []
    real = resampling._products
    monkeypatch.setattr(resampling, "_products", lambda group, pool: runs.append(group) or real(group, pool))
    return runs


@pytest.mark.parametrize("freq", [FEW, MANY, MIXED], ids=["few", "many", "mixed"])
def test_each_resample_takes_n_reports_and_each_row_in_proportion(freq, drawing):
    weights = _all(freq, 1000)
    assert weights.shape == (1000, len(freq)) and weights.dtype == np.float32
    assert (weights.sum(axis=1) == freq.sum()).all()
    # E[w_r] = freq_r; the mean over 1,000 resamples is within a few standard errors of it.
    standard_error = np.sqrt(freq * (1 - freq / freq.sum()) / 1000)
    assert (np.abs(weights.mean(axis=0) - freq) < 5 * standard_error + 1e-9).all()


def test_rows_drawn_by_binomial_and_by_index_vary_together_as_n_reports_drawn_one_by_one(drawing):
    """The multinomial's moments, across the three ways a row is drawn: Var w_r = f_r (1 − f_r/n) and
    Cov(w_r, w_s) = −f_r f_s / n, estimated from 20,000 resamples within a few standard errors."""
    freq = MIXED
    n = freq.sum()
    weights = _all(freq, 20000, seed=5).astype(np.float64)
    frequent, few_rows, single, few = 0, 2, 3, 303  # 600 and 9 (binomials), a row of one, a row of three
    for r, s in [(frequent, single), (single, single + 1), (single, few), (few, few + 1), (frequent, few),
                 (frequent, few_rows)]:
        centred = (weights[:, r] - freq[r]) * (weights[:, s] - freq[s])
        expected = -freq[r] * freq[s] / n
        assert abs(centred.mean() - expected) < 5 * centred.std() / np.sqrt(len(centred)), (r, s)
    for r in (frequent, few_rows, single, few):
        variance = weights[:, r].var()
        expected = freq[r] * (1 - freq[r] / n)
        assert variance == pytest.approx(expected, rel=0.05), r


@pytest.mark.parametrize("freq", [FEW, MANY, MIXED], ids=["few", "many", "mixed"])
def test_fewer_resamples_are_the_first_of_more_and_a_seed_repeats(freq, drawing):
    assert np.array_equal(_all(freq, 200), _all(freq, 1000)[:200])
    assert np.array_equal(_all(freq, 600, seed=4), _all(freq, 600, seed=4))
    assert not np.array_equal(_all(freq, 600, seed=4), _all(freq, 600, seed=5))


def test_a_batch_holds_a_bounded_number_of_weights_however_many_rows():
    for u in (3, 1000, 10**6):
        drawer = resampling._Drawer(np.ones(u, dtype=np.int64))
        assert drawer.size * u <= max(resampling.BATCH_WEIGHTS, u) and drawer.size >= 1


def test_sums_are_the_weights_times_the_parts_and_come_when_the_shared_block_ends():
    rng = np.random.default_rng(2)
    parts = rng.random((len(MIXED), 4))
    parts[:, 2] = 0  # an all-zero column
    expected = _all(MIXED, 300, seed=1).astype(np.float64) @ parts
    got = []
    with shared():
        bootstrap(MIXED, parts, 300, 1, got.append)
        assert got == []  # not yet: other figures may still ask for the same resamples
    assert np.allclose(got[0], expected, rtol=1e-5)
    bootstrap(MIXED, parts, 300, 1, got.append)  # outside a block: at once
    assert np.allclose(got[1], expected, rtol=1e-5)


def test_within_shared_one_draw_serves_every_request_and_a_multiple_of_a_column_is_multiplied_once(monkeypatch):
    rng = np.random.default_rng(4)
    parts = rng.random((len(MANY), 3))
    got = {}
    runs = _runs(monkeypatch)
    with shared():
        bootstrap(MANY, parts, 1000, 0, lambda sums: got.setdefault("first", sums))
        # The same columns halved and one more: one draw, four distinct columns.
        bootstrap(MANY, np.c_[parts / 2, parts[:, 0] ** 2], 200, 0, lambda sums: got.setdefault("fewer", sums))
        bootstrap(MANY, parts, 1000, 1, lambda sums: got.setdefault("other seed", sums))
    assert len(runs) == 2 and len(runs[0].requests) == 2 and len(runs[0].needs) == 4
    assert runs[0].needs == [1000, 1000, 1000, 200]  # the squares are wanted by 200 resamples only
    assert np.allclose(got["fewer"][:, :3], got["first"][:200] / 2, rtol=1e-6)
    assert got["first"].shape == (1000, 3) and got["fewer"].shape == (200, 4)
    assert not np.allclose(got["other seed"], got["first"])


def test_figures_computed_together_equal_figures_computed_alone():
    rng = np.random.default_rng(9)
    counts = np.stack([rng.multinomial(5, [0.6, 0.3, 0.1]) for _ in range(300)])
    matrix = CountMatrix(list(range(300)), ["A", "B", "C"], counts)

    def figures():
        return (fleiss_matrix_figure(matrix, level="t", resamples=500, seed=2),
                coefficients(counts, resamples=500, seed=2), per_code(counts, ["A", "B", "C"], resamples=200, seed=2))

    alone = figures()
    with shared():
        together = figures()
    assert (together[0].ci_low, together[0].ci_high) == pytest.approx((alone[0].ci_low, alone[0].ci_high), rel=1e-6)
    assert together[0].ci_low < together[0].value < together[0].ci_high
    for name, c in alone[1].items():
        assert (together[1][name].ci_low, together[1][name].ci_high) == pytest.approx((c.ci_low, c.ci_high), rel=1e-6)
    for a, t in zip(alone[2], together[2], strict=True):
        for figure in ("alpha", "kappa"):
            assert t[figure]["ci"] == pytest.approx(a[figure]["ci"], rel=1e-6)
            assert a[figure]["ci"][0] is not None


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


def test_a_shared_block_that_fails_draws_nothing_finishes_nothing_and_leaves_no_thread(monkeypatch):
    runs, finished = _runs(monkeypatch), []
    with pytest.raises(RuntimeError), shared():
        for seed in range(5):
            bootstrap(MANY, np.ones((len(MANY), 1)), 1000, seed, finished.append)
        raise RuntimeError("a figure failed")
    assert runs == [] and finished == []
    assert not [t for t in threading.enumerate() if t.name.startswith("resamples")]


def test_a_draw_that_fails_raises_out_of_the_block(monkeypatch):
    def broken(*args):
        raise MemoryError("no room for the resamples")

    monkeypatch.setattr(resampling._Drawer, "draw", broken)
    with pytest.raises(MemoryError, match="no room"), shared():
        bootstrap(MANY, np.ones((len(MANY), 1)), 1000, 0, lambda sums: None)
    assert not [t for t in threading.enumerate() if t.name.startswith("resamples")]


def test_blas_runs_on_one_thread_inside_the_block_and_as_before_after_it():
    from threadpoolctl import threadpool_info

    def blas_threads():
        return [lib["num_threads"] for lib in threadpool_info() if lib["user_api"] == "blas"]

    before = blas_threads()
    with resampling.one_blas_thread():
        assert set(blas_threads()) <= {1}
    assert blas_threads() == before


def _population_kappa(prevalence: np.ndarray, accuracy: float) -> float:
    """Fleiss' kappa of the population in which each rater gives a report's true category with probability
    `accuracy`, else one of the K categories at random: (E[P_i] − Σ p_j²) / (1 − Σ p_j²)."""
    k = len(prevalence)
    given = accuracy * np.eye(k) + (1 - accuracy) / k  # row z: what a rater gives a report of category z
    p_agree = prevalence @ np.square(given).sum(axis=1)
    shares = prevalence @ given
    chance = np.square(shares).sum()
    return float((p_agree - chance) / (1 - chance))


@pytest.mark.parametrize("categories, raters, accuracy", [
    (3, 5, 0.7),  # few distinct rows: every row drawn as a binomial
    (20, 7, 0.45),  # most reports alone in their row: drawn by index
], ids=["frequent-rows", "rows-of-one"])
def test_the_kappa_interval_covers_the_populations_kappa_95_times_in_100(categories, raters, accuracy):
    """A seeded simulation with known truth: 400 studies of 300 reports from a population whose kappa is known;
    the percentile interval (1,000 resamples) must cover it in 91–98.5 % of them (95 % ± 3 standard errors)."""
    rng = np.random.default_rng(11)
    prevalence = rng.dirichlet(np.full(categories, 2.0))
    truth = _population_kappa(prevalence, accuracy)
    covered, studies = 0, 400
    for _ in range(studies):
        true = rng.choice(categories, size=300, p=prevalence)
        given = np.where(rng.random((300, raters)) < accuracy, true[:, None],
                         rng.integers(0, categories, size=(300, raters)))
        counts = np.stack([(given == c).sum(axis=1) for c in range(categories)], axis=1)
        low, high = bootstrap_kappa(counts, resamples=1000, seed=int(rng.integers(2**31)))
        covered += low <= truth <= high
    assert 0.91 <= covered / studies <= 0.985, covered / studies
