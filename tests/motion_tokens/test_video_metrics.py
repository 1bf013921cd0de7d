"""The video metrics against the field's libraries (torchmetrics) and the Fréchet distance against its closed
form: exact for Gaussians with commuting covariances, pytorch-fid's scipy.linalg.sqrtm route on real features."""
from __future__ import annotations


import numpy as np
import pytest
import torch
from scipy import linalg
from torchmetrics.functional.image import peak_signal_noise_ratio, structural_similarity_index_measure

from methods.motion_tokens import video_metrics

RNG = np.random.default_rng(0)
REAL = RNG.integers(0, 256, (4, 48, 48), dtype=np.uint8)
GENERATED = np.clip(REAL + RNG.normal(0, 25, REAL.shape), 0, 255).astype(np.uint8)


def _torch(frames: np.ndarray) -> torch.Tensor:
    tensor = torch.from_numpy(frames).double()
    return tensor[:, None] if frames.ndim == 3 else tensor.permute(0, 3, 1, 2)


def test_psnr_and_l1_equal_torchmetrics():
    expected = peak_signal_noise_ratio(_torch(GENERATED), _torch(REAL), data_range=255.0)
    assert video_metrics.psnr(GENERATED, REAL) == pytest.approx(float(expected), rel=1e-6)
    expected_l1 = (_torch(GENERATED) - _torch(REAL)).abs().mean() / 255
    assert video_metrics.l1(GENERATED, REAL) == pytest.approx(float(expected_l1), rel=1e-12)


@pytest.mark.parametrize("colour", [False, True])
def test_ssim_equals_torchmetrics_up_to_its_border_padding(colour):
    """Same window and statistics; torchmetrics pads the border by reflection where scikit-image crops it."""
    real = RNG.integers(0, 256, (3, 40, 40, 3), dtype=np.uint8) if colour else REAL
    generated = np.clip(real + RNG.normal(0, 25, real.shape), 0, 255).astype(np.uint8)
    expected = structural_similarity_index_measure(_torch(generated), _torch(real), data_range=255.0)
    assert video_metrics.ssim(generated, real) == pytest.approx(float(expected), abs=2e-3)
    assert video_metrics.ssim(real, real) == pytest.approx(1.0)


def test_frechet_distance_equals_the_closed_form_on_gaussians_with_diagonal_covariances():
    """For diagonal covariances tr((C1 C2)^1/2) = sum sqrt(c1 c2): FD = |mu1 - mu2|^2 + sum (sqrt c1 - sqrt c2)^2."""
    mu1, mu2 = RNG.normal(size=5), RNG.normal(size=5)
    var1, var2 = RNG.uniform(0.5, 2, 5), RNG.uniform(0.5, 2, 5)
    expected = ((mu1 - mu2) ** 2).sum() + ((np.sqrt(var1) - np.sqrt(var2)) ** 2).sum()
    got = video_metrics.frechet_from_moments(mu1, np.diag(var1), mu2, np.diag(var2))
    assert got == pytest.approx(expected, rel=1e-12)


def test_frechet_distance_of_samples_approaches_the_population_value():
    mu, cov = np.zeros(4), np.eye(4)
    mu2, cov2 = np.full(4, 0.5), np.diag([1.0, 2.0, 0.5, 1.0])
    population = video_metrics.frechet_from_moments(mu, cov, mu2, cov2)
    rng = np.random.default_rng(1)
    samples = video_metrics.frechet_distance(rng.multivariate_normal(mu, cov, 200_000),
                                             rng.multivariate_normal(mu2, cov2, 200_000))
    assert samples == pytest.approx(population, abs=0.01)


def _sqrtm_route(a: np.ndarray, b: np.ndarray) -> float:
    mu1, cov1 = a.mean(0), np.cov(a, rowvar=False)
    mu2, cov2 = b.mean(0), np.cov(b, rowvar=False)
    root = linalg.sqrtm(cov1 @ cov2).real
    return float(((mu1 - mu2) ** 2).sum() + np.trace(cov1 + cov2 - 2 * root))


@pytest.mark.parametrize("samples", [300, 40])  # 40 < 64 dimensions: a singular covariance, the eigen route
def test_frechet_distance_equals_the_sqrtm_route_pytorch_fid_takes(samples):
    a = RNG.normal(size=(samples, 64))
    b = RNG.normal(size=(samples, 64)) @ RNG.normal(size=(64, 64)) * 0.3 + 0.2
    assert video_metrics.frechet_distance(a, b) == pytest.approx(_sqrtm_route(a, b), rel=1e-6)
    assert video_metrics.frechet_distance(a, a) == pytest.approx(0.0, abs=1e-6)


@pytest.mark.slow
def test_frechet_distance_at_the_issues_10000_by_2048_size_is_zero_on_equal_sets_and_symmetric():
    """The issue's size (its time is benchmarks/test_bench_motion_tokens.py's, not a test's): the eigen route stays
    exact where the covariances are 2048 x 2048, and tells sets that differ by a 1.1 scale apart."""
    rng = np.random.default_rng(2)
    a, b = rng.normal(size=(10_000, 2048)), rng.normal(size=(10_000, 2048)) * 1.1
    assert video_metrics.frechet_distance(a, a) == pytest.approx(0.0, abs=1e-6)
    forward, backward = video_metrics.frechet_distance(a, b), video_metrics.frechet_distance(b, a)
    assert forward == pytest.approx(backward, rel=1e-9)
    assert forward > 2048 * (1.1 - 1.0) ** 2  # the population distance (20.5); finite samples add about 230 here
