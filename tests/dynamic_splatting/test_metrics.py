"""Image metrics against torchmetrics and scikit-image and a hand computation; the trajectory and calibration
metrics on cases whose answer is known."""
from __future__ import annotations

import math

import numpy as np
import pytest
import torch

from methods.dynamic_splatting.image_metrics import psnr, ssim


@pytest.fixture()
def pair():
    rng = np.random.default_rng(0)
    target = rng.random((32, 32, 3))
    return np.clip(target + rng.normal(0, 0.1, target.shape), 0, 1), target


def test_psnr_equals_torchmetrics_and_scikit_image(pair):
    from skimage.metrics import peak_signal_noise_ratio
    from torchmetrics.functional.image import peak_signal_noise_ratio as tm_psnr

    pred, target = pair
    assert psnr(pred, target) == pytest.approx(peak_signal_noise_ratio(target, pred, data_range=1.0), rel=1e-12)
    expected = tm_psnr(torch.as_tensor(pred), torch.as_tensor(target), data_range=1.0)
    assert psnr(pred, target) == pytest.approx(float(expected), rel=1e-6)  # torchmetrics sums in float32


def test_masked_psnr_equals_a_hand_computation():
    pred = np.zeros((2, 2, 3))
    target = np.zeros((2, 2, 3))
    target[0, 0] = 0.5        # masked out
    target[1, 1] = [0.1, 0.2, 0.3]
    mask = np.array([[False, True], [True, True]])
    mse = (0.01 + 0.04 + 0.09) / 3 / 3  # three masked pixels, three channels each
    assert psnr(pred, target, mask) == pytest.approx(10 * math.log10(1 / mse), rel=1e-12)
    assert math.isnan(psnr(pred, target, np.zeros((2, 2), bool)))


def test_ssim_equals_scikit_image_and_its_map_equals_torchmetrics(pair):
    from skimage.metrics import structural_similarity
    from torchmetrics.functional.image import structural_similarity_index_measure as tm_ssim

    pred, target = pair
    expected = structural_similarity(target, pred, data_range=1.0, channel_axis=-1, gaussian_weights=True,
                                     sigma=1.5, use_sample_covariance=False)
    assert ssim(pred, target) == pytest.approx(expected, rel=1e-12)
    chw = [torch.as_tensor(a).permute(2, 0, 1)[None] for a in (pred, target)]
    _, full = tm_ssim(chw[0], chw[1], data_range=1.0, gaussian_kernel=True, sigma=1.5, kernel_size=11,
                      return_full_image=True)
    interior = np.ones(target.shape[:2], bool)
    interior[:5], interior[-5:], interior[:, :5], interior[:, -5:] = False, False, False, False
    # torchmetrics' scalar also averages the 5-pixel border its reflection padding fills; its map agrees inside
    assert ssim(pred, target, interior) == pytest.approx(float(full[0].mean(0).numpy()[interior].mean()), rel=1e-12)


def test_masked_ssim_over_every_pixel_of_an_identical_image_is_one(pair):
    _, target = pair
    assert ssim(target, target, np.ones(target.shape[:2], bool)) == pytest.approx(1.0)
    assert ssim(pair[0], target, np.ones(target.shape[:2], bool)) < 1.0
