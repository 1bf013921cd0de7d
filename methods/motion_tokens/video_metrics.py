"""Video metrics on frames and on features extracted elsewhere: L1, PSNR and SSIM of paired frames
(scikit-image), and the Fréchet distance between two feature sets (the FID / FID-VID / FVD formula; the Inception
and I3D weights those need are not offline here, so users bring the features)."""
from __future__ import annotations

import numpy as np


def l1(generated: np.ndarray, real: np.ndarray) -> float:
    """Mean absolute difference of paired frames, intensities scaled to [0, 1]."""
    return float(np.abs(generated.astype(np.float64) - real.astype(np.float64)).mean() / 255.0)


def psnr(generated: np.ndarray, real: np.ndarray) -> float:
    """PSNR (dB) over all paired uint8 frames together (`skimage.metrics.peak_signal_noise_ratio`); infinite for
    identical frames (scikit-image's division by a zero error, silenced)."""
    from skimage.metrics import peak_signal_noise_ratio

    with np.errstate(divide="ignore"):
        return float(peak_signal_noise_ratio(real, generated, data_range=255))


def ssim(generated: np.ndarray, real: np.ndarray) -> float:
    """Mean SSIM of paired uint8 frames (n, H, W) or (n, H, W, 3) (`skimage.metrics.structural_similarity`) with
    Wang et al.'s settings, an 11x11 Gaussian window of sigma 1.5 and population statistics, as torchmetrics and
    the animation papers' evaluation code compute it."""
    from skimage.metrics import structural_similarity

    channel_axis = -1 if real.ndim == 4 else None
    return float(np.mean([structural_similarity(r, g, data_range=255, channel_axis=channel_axis,
                                                gaussian_weights=True, sigma=1.5, use_sample_covariance=False)
                          for r, g in zip(real, generated, strict=True)]))


def gaussian_moments(features: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Mean and unbiased covariance of features (n, d)."""
    features = np.asarray(features, dtype=np.float64)
    mean = features.mean(axis=0)
    centred = features - mean
    return mean, centred.T @ centred / (len(features) - 1)


def trace_sqrt_product(cov1: np.ndarray, cov2: np.ndarray) -> float:
    """tr((C1 C2)^(1/2)) for covariances C1, C2: the sum of the square roots of the eigenvalues of L^T C2 L, where
    C1 = L L^T (Cholesky; C1's symmetric square root when C1 is singular), a symmetric matrix similar to C1 C2.
    One Cholesky and one eigenvalue-only symmetric decomposition (LAPACK's divide and conquer): several times
    faster than `scipy.linalg.sqrtm` of the non-symmetric product (pytorch-fid's route), equal up to rounding."""
    from scipy import linalg

    try:
        factor = linalg.cholesky(cov1, lower=True)
    except linalg.LinAlgError:
        values, vectors = linalg.eigh(cov1, driver="evd")
        factor = (vectors * np.sqrt(np.clip(values, 0, None))) @ vectors.T
    similar = factor.T @ cov2 @ factor
    return float(np.sqrt(np.clip(linalg.eigh(similar, eigvals_only=True, driver="evd"), 0, None)).sum())


def frechet_from_moments(mu1: np.ndarray, cov1: np.ndarray, mu2: np.ndarray, cov2: np.ndarray) -> float:
    """|mu1 - mu2|^2 + tr(C1) + tr(C2) - 2 tr((C1 C2)^(1/2)): the Fréchet distance of two Gaussians."""
    return float(((mu1 - mu2) ** 2).sum() + np.trace(cov1) + np.trace(cov2) - 2 * trace_sqrt_product(cov1, cov2))


def frechet_distance(generated: np.ndarray, real: np.ndarray) -> float:
    """The Fréchet distance between Gaussians fitted to two feature sets (n1, d) and (n2, d)."""
    return frechet_from_moments(*gaussian_moments(generated), *gaussian_moments(real))
