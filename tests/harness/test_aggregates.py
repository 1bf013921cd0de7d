"""Aggregates over tasks: point estimates equal rliable's, and the stratified bootstrap behaves as one."""
from __future__ import annotations

import numpy as np
import pytest
from scipy import stats as scipy_stats

from harness.aggregates import (STATISTICS, aggregate_estimates, difference_estimate, improvement_estimate,
                                observed, probability_of_improvement, statistic, stratified_resamples)
from tests.extras import require_extra

RLIABLE_NAMES = {"mean": "aggregate_mean", "median": "aggregate_median", "iqm": "aggregate_iqm",
                 "optimality_gap": "aggregate_optimality_gap"}


def _continuous() -> np.ndarray:
    return np.random.default_rng(0).normal(0.6, 0.3, size=(10, 4))


def _ties() -> np.ndarray:
    """Scores on a coarse grid, several of them above gamma = 1: ties inside and across tasks."""
    return np.random.default_rng(1).integers(0, 6, size=(6, 3)) / 4


def _odd_runs() -> np.ndarray:
    return np.random.default_rng(2).uniform(-0.2, 1.3, size=(5, 3))


FIXTURES = {"continuous": _continuous, "ties": _ties, "odd_runs": _odd_runs}


def _tasks(matrix: np.ndarray) -> list[np.ndarray]:
    """rliable's (runs x tasks) matrix as one array of runs per task."""
    return [matrix[:, task] for task in range(matrix.shape[1])]


@pytest.mark.parametrize("fixture", FIXTURES)
@pytest.mark.parametrize("name", STATISTICS)
def test_point_estimates_equal_rliable_metrics(fixture, name):
    require_extra("rl")
    import rliable.metrics as metrics
    matrix = FIXTURES[fixture]()
    ours = statistic(name)(observed(_tasks(matrix)))[0]
    assert ours == pytest.approx(getattr(metrics, RLIABLE_NAMES[name])(matrix), abs=1e-12)


@pytest.mark.parametrize("fixture", FIXTURES)
def test_probability_of_improvement_equals_rliable(fixture):
    require_extra("rl")
    import rliable.metrics as metrics
    x = FIXTURES[fixture]()
    y = np.random.default_rng(9).permutation(x.ravel()).reshape(x.shape)[:-1] + 0.05  # one run fewer
    y[:, 0] = np.round(y[:, 0], 1)  # ties against X's first task
    for a, b in ((x, y), (y, x), (x, x)):  # (x, x): identical runs, exactly 1/2
        ours = probability_of_improvement(observed(_tasks(a)), observed(_tasks(b)))[0]
        assert ours == pytest.approx(metrics.probability_of_improvement(a, b), abs=1e-12)


def test_optimality_gap_equals_rliable_at_another_gamma():
    require_extra("rl")
    import rliable.metrics as metrics
    matrix = _ties()
    assert statistic("optimality_gap", gamma=0.5)(observed(_tasks(matrix)))[0] == pytest.approx(
        metrics.aggregate_optimality_gap(matrix, gamma=0.5), abs=1e-12)


def test_iqm_is_scipys_trimmed_mean_of_the_pooled_runs_of_unequal_tasks():
    tasks = [np.arange(3.0), np.arange(10.0, 17.0), np.array([5.0])]
    pooled = np.concatenate(tasks)
    assert statistic("iqm")(observed(tasks))[0] == pytest.approx(scipy_stats.trim_mean(pooled, 0.25))


def test_stratified_resamples_keep_each_tasks_run_count_and_draw_only_its_runs():
    tasks = [np.array([1.0, 2.0, 3.0]), np.array([10.0, 20.0]), np.array([100.0, 200.0, 300.0, 400.0, 500.0])]
    draws = stratified_resamples(tasks, 500, np.random.default_rng(0))
    assert [d.shape for d in draws] == [(500, 3), (500, 2), (500, 5)]
    for runs, drawn in zip(tasks, draws, strict=True):
        assert set(np.unique(drawn)) <= set(runs)
        assert len(np.unique(drawn)) == len(runs)  # with 500 draws every run is drawn at least once


def test_the_bootstrap_is_reproducible_from_its_seed():
    tasks = _tasks(_continuous())
    first = aggregate_estimates(tasks, STATISTICS, 300, np.random.default_rng(7))
    again = aggregate_estimates(tasks, STATISTICS, 300, np.random.default_rng(7))
    other = aggregate_estimates(tasks, STATISTICS, 300, np.random.default_rng(8))
    assert first == again
    assert first != other


@pytest.mark.parametrize("fixture", FIXTURES)
def test_each_interval_contains_its_point_estimate(fixture):
    for name, found in aggregate_estimates(_tasks(FIXTURES[fixture]()), STATISTICS, 2000,
                                           np.random.default_rng(3)).items():
        assert found.low <= found.point <= found.high, name
        assert found.low < found.high, name


def test_identical_runs_give_intervals_of_zero_width():
    tasks = [np.full(4, 0.3), np.full(4, 0.9), np.full(4, 1.2)]
    for found in aggregate_estimates(tasks, STATISTICS, 200, np.random.default_rng(0)).values():
        assert found.low == found.point == found.high
    same = improvement_estimate(tasks, tasks, 200, np.random.default_rng(1), np.random.default_rng(2))
    assert same.low == same.point == same.high == 0.5


def _loop_reference(matrix: np.ndarray, name: str, reps: int, seed: int) -> np.ndarray:
    """The bootstrap written out: per draw, per task, the same indices, then the statistic by its definition."""
    rng = np.random.default_rng(seed)
    runs, tasks = matrix.shape
    indices = [rng.integers(0, runs, size=(reps, runs)) for _ in range(tasks)]
    values = []
    for draw in range(reps):
        resampled = np.column_stack([matrix[indices[task][draw], task] for task in range(tasks)])
        task_means = [float(np.mean(resampled[:, task])) for task in range(tasks)]
        pooled = np.sort(resampled.ravel())
        cut = int(0.25 * pooled.size)
        values.append({"mean": np.mean(task_means), "median": np.median(task_means),
                       "iqm": np.mean(pooled[cut:pooled.size - cut]),
                       "optimality_gap": np.mean([max(1.0 - s, 0.0) for s in pooled])}[name])
    return np.array(values)


@pytest.mark.parametrize("name", STATISTICS)
def test_vectorised_bootstrap_equals_a_plain_loop(name):
    matrix = _odd_runs()
    draws = statistic(name)(stratified_resamples(_tasks(matrix), 200, np.random.default_rng(5)))
    np.testing.assert_allclose(draws, _loop_reference(matrix, name, 200, 5), atol=1e-12)


def test_difference_interval_excludes_zero_only_for_a_clear_gap():
    base = _tasks(_continuous())
    clear = difference_estimate("iqm", [t + 0.5 for t in base], base, 1000, np.random.default_rng(0),
                                np.random.default_rng(1))
    assert clear.point == pytest.approx(0.5) and clear.low > 0
    none = difference_estimate("iqm", base, base, 1000, np.random.default_rng(0), np.random.default_rng(1))
    assert none.point == 0 and none.low < 0 < none.high
