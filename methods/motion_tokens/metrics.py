"""The family's metrics, functions of a `ScoredMotion` (methods.motion_tokens.scored): reconstruction errors in
millimetres on the clean test clips, the same under noise and retargeting, the codebook's use, and the stick-figure
renders of the decoded clips against the true ones (scikit-image's PSNR and SSIM)."""
from __future__ import annotations

import numpy as np

from harness import Metric
from methods.motion_tokens import pose_metrics
from methods.motion_tokens.scored import ScoredMotion

MM = 1000.0


def mpjpe(run: ScoredMotion) -> float:
    return MM * pose_metrics.mpjpe(run.decoded["clean"], run.truth.clean)


def pa_mpjpe(run: ScoredMotion) -> float:
    return MM * pose_metrics.pa_mpjpe(run.decoded["clean"], run.truth.clean)


def accel_error(run: ScoredMotion) -> float:
    return MM * pose_metrics.acceleration_error(run.decoded["clean"], run.truth.clean)


def mpjpe_noise(run: ScoredMotion) -> float:
    """MPJPE of the noisy clips' reconstruction against the clean clips: can the tokenizer denoise?"""
    return MM * pose_metrics.mpjpe(run.decoded["noisy"], run.truth.clean)


def mpjpe_retarget(run: ScoredMotion) -> float:
    """MPJPE on the clips moved to bodies of other proportions than the training ones."""
    return MM * pose_metrics.mpjpe(run.decoded["retargeted"], run.truth.retargeted)


def codebook_usage(run: ScoredMotion) -> float:
    """Per cent of the codebook used by the clean test clips' tokens; NaN without a codebook."""
    if run.tokens is None:
        return float("nan")
    return pose_metrics.codebook_usage(run.tokens, run.codebook_size)


def perplexity(run: ScoredMotion) -> float:
    if run.tokens is None:
        return float("nan")
    return pose_metrics.perplexity(run.tokens, run.codebook_size)


def render_psnr(run: ScoredMotion) -> float:
    """PSNR (dB) of the decoded clips' stick figures against the true ones, over all rendered frames
    (`skimage.metrics.peak_signal_noise_ratio` on the stacked frames)."""
    from skimage.metrics import peak_signal_noise_ratio

    decoded, truth = run.renders
    return float(peak_signal_noise_ratio(truth, decoded, data_range=255))


def render_ssim(run: ScoredMotion) -> float:
    """Mean SSIM of the rendered frames (`skimage.metrics.structural_similarity`, 7x7 windows, per frame)."""
    from skimage.metrics import structural_similarity

    decoded, truth = run.renders
    return float(np.mean([structural_similarity(t, d, data_range=255) for t, d in zip(truth, decoded, strict=True)]))


MPJPE = Metric("mpjpe", mpjpe, higher_is_better=False, unit="mm",
               description="mean per-joint position error of the clean test clips' reconstruction")
PA_MPJPE = Metric("pa_mpjpe", pa_mpjpe, higher_is_better=False, unit="mm",
                  description="MPJPE after per-frame Procrustes (similarity) alignment")
ACCEL_ERROR = Metric("accel_error", accel_error, higher_is_better=False, unit="mm/frame^2",
                     description="mean error of the joints' accelerations (second differences)")
MPJPE_NOISE = Metric("mpjpe_noise", mpjpe_noise, higher_is_better=False, unit="mm",
                     description="MPJPE of the noisy test clips' reconstruction against the clean clips")
MPJPE_RETARGET = Metric("mpjpe_retarget", mpjpe_retarget, higher_is_better=False, unit="mm",
                        description="MPJPE on the test clips retargeted to other bone lengths")
CODEBOOK_USAGE = Metric("codebook_usage", codebook_usage, higher_is_better=True, unit="%",
                        description="per cent of codebook entries the clean test tokens use")
PERPLEXITY = Metric("perplexity", perplexity, higher_is_better=True,
                    description="exp entropy of the clean test tokens' code frequencies")
RENDER_PSNR = Metric("render_psnr", render_psnr, higher_is_better=True, unit="dB",
                     description="PSNR of 64x64 stick-figure renders of decoded vs true clips")
RENDER_SSIM = Metric("render_ssim", render_ssim, higher_is_better=True,
                     description="mean SSIM of 64x64 stick-figure renders of decoded vs true clips")
