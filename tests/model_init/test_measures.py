"""Spectral distance, linear CKA, steps to a threshold and the curve's AUC against known values; a missing figure."""
from __future__ import annotations

import numpy as np
import pytest
from scipy.stats import ortho_group

from methods.model_init.measures import curve_auc, linear_cka, spectral_distance, steps_to_threshold
from methods.model_init.metrics import CKA, PERPLEXITY, ScoredRun


def test_spectral_distance_is_zero_on_identical_and_rotated_matrices_and_scales_with_the_spectrum():
    rng = np.random.default_rng(0)
    w = rng.normal(size=(12, 8))
    assert spectral_distance(w, w) == 0.0
    assert spectral_distance(w, ortho_group.rvs(12, random_state=1) @ w) == pytest.approx(0.0, abs=1e-12)
    assert spectral_distance(w, 1.5 * w) == pytest.approx(0.5)  # every singular value 50 % larger
    assert spectral_distance(np.diag([3.0, 4.0]), np.diag([3.0, 4.0, 1.0])) == pytest.approx(0.0)  # top k = 2


def _hand_cka(x: np.ndarray, y: np.ndarray) -> float:
    """HSIC with the centring matrix H, written out: tr(K H L H) / sqrt(tr(K H K H) tr(L H L H))."""
    n = len(x)
    h = np.eye(n) - np.ones((n, n)) / n
    k, l_ = x @ x.T, y @ y.T
    hsic = lambda a, b: np.trace(a @ h @ b @ h)  # noqa: E731
    return hsic(k, l_) / np.sqrt(hsic(k, k) * hsic(l_, l_))


def test_linear_cka_matches_a_hand_computation_and_its_invariances():
    rng = np.random.default_rng(1)
    x = rng.normal(size=(40, 6))
    y = x @ rng.normal(size=(6, 4)) + 0.5 * rng.normal(size=(40, 4))
    assert linear_cka(x, y) == pytest.approx(_hand_cka(x, y), rel=1e-10)
    assert linear_cka(x, x) == pytest.approx(1.0)
    q = ortho_group.rvs(4, random_state=2)
    assert linear_cka(x, y @ q) == pytest.approx(linear_cka(x, y), rel=1e-10)  # orthogonal transform
    assert linear_cka(3.0 * x, y) == pytest.approx(linear_cka(x, y), rel=1e-10)  # isotropic scaling
    assert linear_cka(x + 5.0, y) == pytest.approx(linear_cka(x, y), rel=1e-10)  # translation (centred)
    anisotropic = x * np.array([1, 1, 1, 1, 1, 10.0])
    assert abs(linear_cka(anisotropic, y) - linear_cka(x, y)) > 1e-3  # not invariant to any linear map


def test_steps_to_threshold_and_auc_on_known_curves():
    steps = np.array([0.0, 10.0, 20.0, 30.0])
    losses = np.array([4.0, 3.0, 2.0, 1.0])
    assert steps_to_threshold(steps, losses, 2.0) == 20.0  # reached exactly
    assert steps_to_threshold(steps, losses, 2.5) == 20.0
    assert steps_to_threshold(steps, losses, 4.0) == 0.0
    assert steps_to_threshold(steps, losses, 0.5) == 40.0  # never: one interval past the budget
    assert curve_auc(steps, losses) == pytest.approx(2.5)  # a straight line's mean
    assert curve_auc(steps, np.full(4, 3.0)) == pytest.approx(3.0)
    assert curve_auc(np.array([0.0, 10.0, 30.0]), np.array([2.0, 0.0, 0.0])) == pytest.approx(10 / 30)


def test_a_figure_missing_from_the_predictions_is_an_error_not_nan():
    run = ScoredRun(0.5, np.array([0.0, 5.0]), np.array([3.0, 2.0]), {"perplexity": 4.0}, threshold=2.5)
    assert PERPLEXITY(run) == 4.0
    with pytest.raises(ValueError, match="no 'figure' row for 'cka'; it has perplexity"):
        CKA(run)
