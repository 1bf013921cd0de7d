"""The calibration figures beside Spearman(u, error): the partial rank correlation against a hand computation
(residuals of ranks regressed on the controlling ranks) and scipy, and the visibility baseline on known cases."""
from __future__ import annotations

import numpy as np
import pytest
from scipy.stats import pearsonr, rankdata, spearmanr

from methods.dynamic_splatting.calibration import (partial_spearman, uncertainty_partial_spearman,
                                                   uncertainty_spearman_visible, unseen_share, visibility_spearman)
from methods.dynamic_splatting.scored import ScoredMotion


def _residual(y: np.ndarray, x: np.ndarray) -> np.ndarray:
    slope, intercept = np.polyfit(x, y, 1)
    return y - (slope * x + intercept)


def test_partial_spearman_equals_the_correlation_of_rank_residuals():
    rng = np.random.default_rng(3)
    z = rng.integers(0, 4, 200).astype(float)   # ties, as a share of frames has
    x, y = z + rng.normal(0, 1, 200), z + rng.normal(0, 1, 200) + 0.3 * rng.normal(0, 1, 200)
    y = y + 0.5 * x
    rx, ry, rz = rankdata(x), rankdata(y), rankdata(z)
    expected = pearsonr(_residual(rx, rz), _residual(ry, rz)).statistic
    assert partial_spearman(x, y, z) == pytest.approx(expected, abs=1e-12)


def test_partial_spearman_of_a_pure_visibility_flag_is_near_zero_and_without_control_is_spearman():
    rng = np.random.default_rng(4)
    z = rng.random(500)
    error = z + rng.normal(0, 0.05, 500)
    flag = z ** 3  # a monotone function of visibility: ranks nothing beyond it
    assert spearmanr(flag, error).statistic > 0.9
    assert abs(partial_spearman(flag, error, z)) < 1e-9
    noise = rng.random(500)  # a control independent of both changes little
    assert partial_spearman(flag, error, noise) == pytest.approx(spearmanr(flag, error).statistic, abs=0.1)


def _run(seen: np.ndarray, uncertainty: np.ndarray, error: np.ndarray) -> ScoredMotion:
    count = seen.shape[1]
    return ScoredMotion((), np.zeros(seen.shape), np.ones(count, bool), seen, uncertainty, error,
                        np.zeros(seen.shape))


def test_a_flag_scores_the_visibility_baseline_but_nothing_beyond_it():
    rng = np.random.default_rng(5)
    seen = rng.random((8, 60)) < 0.7
    share = unseen_share(seen)
    error = share + rng.normal(0, 0.02, 60)
    run = _run(seen, share * 100, error)
    assert visibility_spearman(run) == pytest.approx(spearmanr(share, error).statistic)
    assert abs(uncertainty_partial_spearman(run)) < 1e-9


def test_an_uncertainty_that_knows_the_error_beats_the_flag_beyond_visibility():
    rng = np.random.default_rng(6)
    seen = rng.random((8, 80)) < 0.8
    seen[:, :30] = True  # 30 Gaussians seen in every frame: only the uncertainty can rank them
    error = unseen_share(seen) + rng.random(80)
    run = _run(seen, error.copy(), error)
    assert uncertainty_partial_spearman(run) > 0.9
    assert uncertainty_spearman_visible(run) == pytest.approx(1.0)
    no_uncertainty = _run(seen, np.full(80, np.nan), error)
    assert uncertainty_partial_spearman(no_uncertainty) == 0.0 and uncertainty_spearman_visible(no_uncertainty) == 0.0
