"""The pose metrics against their definitions and references: MPJPE is zero on identity, PA-MPJPE is invariant
to similarity transforms and equals scipy's Procrustes disparity, codebook figures on known histograms."""
from __future__ import annotations

import numpy as np
import pytest
from scipy.spatial import procrustes
from scipy.spatial.transform import Rotation

from methods.motion_tokens import pose_metrics

RNG = np.random.default_rng(0)
POSES = RNG.normal(size=(4, 6, 17, 3))


def test_mpjpe_is_zero_on_identity_and_the_mean_joint_distance_otherwise():
    assert pose_metrics.mpjpe(POSES, POSES) == 0.0
    shifted = POSES + np.array([0.3, 0.4, 0.0])
    assert pose_metrics.mpjpe(shifted, POSES) == pytest.approx(0.5)


def test_pa_mpjpe_is_invariant_to_similarity_transforms():
    rotation = Rotation.random(random_state=1).as_matrix()
    moved = 2.5 * POSES @ rotation.T + np.array([1.0, -2.0, 0.5])
    assert pose_metrics.pa_mpjpe(moved, POSES) == pytest.approx(0.0, abs=1e-10)
    noisy = POSES + RNG.normal(0, 0.1, POSES.shape)
    assert pose_metrics.pa_mpjpe(1.7 * noisy @ rotation + 3.0, POSES) == pytest.approx(
        pose_metrics.pa_mpjpe(noisy, POSES), rel=1e-9)
    assert pose_metrics.mpjpe(moved, POSES) > 1.0


def test_procrustes_alignment_matches_scipy_disparity():
    """scipy.spatial.procrustes scales both poses to unit norm and aligns the second to the first: its disparity
    is our aligned squared error over the target's centred squared norm (poses near a rotation of each other, so
    that scipy's fit, which may reflect, is a rotation too)."""
    rotation = Rotation.random(random_state=2).as_matrix()
    for target, predicted in zip(POSES[0], 0.8 * POSES[0] @ rotation + 0.3 * POSES[1], strict=True):
        _, _, disparity = procrustes(target, predicted)
        aligned = pose_metrics.procrustes_aligned(predicted, target)
        ours = ((aligned - target) ** 2).sum() / ((target - target.mean(axis=0)) ** 2).sum()
        assert ours == pytest.approx(disparity, rel=1e-9)


def test_procrustes_matches_the_svd_closed_form_and_never_reflects():
    target, predicted = POSES[0, 0], POSES[0, 0][:, [1, 0, 2]]  # a mirror image: the best fit is a reflection
    p, t = predicted - predicted.mean(0), target - target.mean(0)
    u, s, vt = np.linalg.svd(p.T @ t)
    d = np.diag([1.0, 1.0, np.sign(np.linalg.det(u @ vt))])
    expected = (np.trace(np.diag(s) @ d) / (p ** 2).sum()) * p @ (u @ d @ vt) + target.mean(0)
    aligned = pose_metrics.procrustes_aligned(predicted, target)
    np.testing.assert_allclose(aligned, expected, atol=1e-12)
    rotation = np.linalg.lstsq(p, aligned - target.mean(0), rcond=None)[0]
    assert np.linalg.det(rotation) > 0


def test_acceleration_error_ignores_constant_velocity_and_sees_jitter():
    drift = POSES + np.arange(6)[None, :, None, None] * 0.1
    assert pose_metrics.acceleration_error(drift, POSES) == pytest.approx(0.0, abs=1e-12)
    jitter = POSES.copy()
    jitter[:, 3, :, 0] += 1.0  # one frame displaced by 1: second differences -2 there, +1 either side
    expected = (1 + 2 + 1) / 4  # per clip, mean over the 4 second-difference frames
    assert pose_metrics.acceleration_error(jitter, POSES) == pytest.approx(expected)


def test_codebook_usage_and_perplexity_on_known_histograms():
    uniform = np.tile(np.arange(8), (3, 2))
    assert pose_metrics.codebook_usage(uniform, 16) == 50.0
    assert pose_metrics.perplexity(uniform, 16) == pytest.approx(8.0)
    assert pose_metrics.perplexity(np.zeros((2, 5), dtype=int), 16) == pytest.approx(1.0)
