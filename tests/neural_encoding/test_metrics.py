"""The metrics against scipy: per-unit Pearson r, its mean over units, correlation to average and FEVE."""
from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from methods.neural_encoding.metrics import (correlation_to_average, feve, single_trial_r, unit_correlations)
from methods.neural_encoding.problem import Target
from methods.neural_encoding.scored import ScoredColumns


def _run(values: np.ndarray, prediction: np.ndarray, movie: np.ndarray | None = None) -> ScoredColumns:
    target = Target(values, np.arange(values.shape[1]), np.arange(values.shape[2]), movie)
    return ScoredColumns({"pop_stim": [(target, prediction)]})


def test_unit_correlations_equal_scipy_pearsonr():
    rng = np.random.default_rng(0)
    x, y = rng.poisson(2.0, (50, 6)).astype(float), rng.normal(size=(50, 6))
    y[:, 0] += x[:, 0]
    expected = [stats.pearsonr(x[:, j], y[:, j]).statistic for j in range(6)]
    np.testing.assert_allclose(unit_correlations(x, y), expected, rtol=1e-10)


def test_single_trial_r_averages_scipy_r_over_units_with_trials_and_time_pooled():
    rng = np.random.default_rng(1)
    values = rng.poisson(1.5, (4, 10, 3)).astype(float)
    prediction = values + rng.normal(size=values.shape)
    expected = np.mean([stats.pearsonr(values[..., u].ravel(), prediction[..., u].ravel()).statistic
                        for u in range(3)])
    assert single_trial_r(_run(values, prediction), "pop_stim") == pytest.approx(expected, rel=1e-10)


def test_a_constant_prediction_scores_zero_not_nan():
    values = np.random.default_rng(2).poisson(1.0, (3, 5, 2)).astype(float)
    assert single_trial_r(_run(values, np.ones_like(values)), "pop_stim") == 0.0


def test_an_unpredicted_column_is_nan():
    values = np.ones((2, 3, 1))
    assert np.isnan(single_trial_r(_run(values, values), "forecast"))


def test_correlation_to_average_uses_repeat_means():
    rng = np.random.default_rng(3)
    movie = np.repeat(np.arange(4), 3)
    values = rng.poisson(2.0, (12, 6, 2)).astype(float)
    prediction = rng.normal(size=values.shape)
    means = [np.stack([a[movie == m].mean(axis=0) for m in range(4)]) for a in (values, prediction)]
    expected = np.mean([stats.pearsonr(means[0][..., u].ravel(), means[1][..., u].ravel()).statistic
                        for u in range(2)])
    assert correlation_to_average(_run(values, prediction, movie)) == pytest.approx(expected, rel=1e-10)


def test_feve_is_one_for_the_true_rate_and_zero_for_the_grand_mean_in_expectation():
    rng = np.random.default_rng(4)
    movie = np.repeat(np.arange(30), 30)
    rate = np.repeat(rng.gamma(2.0, 1.0, (30, 5, 4)), 30, axis=0)
    values = rng.poisson(rate).astype(float)
    assert feve(_run(values, rate, movie)) == pytest.approx(1.0, abs=0.05)
    assert feve(_run(values, np.full_like(rate, values.mean(axis=(0, 1))), movie)) == pytest.approx(0.0, abs=0.05)
