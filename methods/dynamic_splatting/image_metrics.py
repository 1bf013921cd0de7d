"""PSNR and SSIM of one image, optionally over a co-visibility mask (DyCheck's mPSNR / mSSIM: the squared error,
or the SSIM map, averaged over the masked pixels alone). SSIM is scikit-image's (Gaussian window, sigma 1.5,
population covariances: Wang et al.'s settings, which torchmetrics uses too); its map is what the mask averages."""
from __future__ import annotations

import math

import numpy as np


def psnr(pred: np.ndarray, target: np.ndarray, mask: np.ndarray | None = None) -> float:
    """10 log10(1 / MSE) for images in [0, 1] (H, W, C), the MSE over `mask`'s pixels (H, W) and every channel;
    NaN when the mask is empty, +inf for an exact match."""
    squared = ((np.asarray(pred, np.float64) - np.asarray(target, np.float64)) ** 2).mean(axis=-1)
    if mask is not None:
        if not mask.any():
            return float("nan")
        squared = squared[mask]
    mse = float(squared.mean())
    return math.inf if mse == 0 else 10.0 * math.log10(1.0 / mse)


def ssim(pred: np.ndarray, target: np.ndarray, mask: np.ndarray | None = None) -> float:
    """Mean SSIM (channels averaged) over the image, or over `mask`'s pixels; NaN for an empty mask."""
    from skimage.metrics import structural_similarity

    _, full = structural_similarity(np.asarray(target, np.float64), np.asarray(pred, np.float64), data_range=1.0,
                                    channel_axis=-1, gaussian_weights=True, sigma=1.5,
                                    use_sample_covariance=False, full=True)
    per_pixel = full.mean(axis=-1)
    if mask is None:
        border = 5  # scikit-image's own mean leaves out the window's half-width (3.5 sigma) at each border
        return float(per_pixel[border:-border, border:-border].mean())
    return float(per_pixel[mask].mean()) if mask.any() else float("nan")
