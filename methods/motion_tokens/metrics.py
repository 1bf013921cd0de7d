"""The family's metrics, functions of a `ScoredMotion` (methods.motion_tokens.scored): reconstruction errors in
millimetres on the clean test clips, the same under noise and retargeting, the codebook's use, and the stick-figure
renders of the decoded clips against the true ones (scikit-image's PSNR and SSIM); and the video metrics of the
`motion_tokens.video` task, functions of (generated, real) `VideoClip`s."""
from __future__ import annotations

from collections.abc import Callable
from functools import partial

import numpy as np

from harness import Metric
from methods.motion_tokens import pose_metrics, video_metrics
from methods.motion_tokens.scored import ScoredMotion
from methods.motion_tokens.video_data import VideoClip

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


def bits_per_frame(run: ScoredMotion) -> float:
    """The size of one clip's code over its frames: the rate a reconstruction error is paid for."""
    return run.bits_per_clip / run.truth.clean.shape[1]


def render_psnr(run: ScoredMotion) -> float:
    """PSNR (dB) of the decoded clips' stick figures against the true ones, all rendered frames together."""
    return video_metrics.psnr(*run.renders)


def render_ssim(run: ScoredMotion) -> float:
    """Mean SSIM of the decoded clips' stick figures against the true ones (methods.motion_tokens.video_metrics)."""
    return video_metrics.ssim(*run.renders)


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
BITS_PER_FRAME = Metric("bits_per_frame", bits_per_frame, higher_is_better=False, unit="bit",
                        description="bits of one clip's code per frame (tokens x log2 codebook, or values x bits)")
RENDER_PSNR = Metric("render_psnr", render_psnr, higher_is_better=True, unit="dB",
                     description="PSNR of 64x64 stick-figure renders of decoded vs true clips")
RENDER_SSIM = Metric("render_ssim", render_ssim, higher_is_better=True,
                     description="mean SSIM of 64x64 stick-figure renders of decoded vs true clips")


def _paired_frames(run: tuple[VideoClip, VideoClip], measure: Callable[[np.ndarray, np.ndarray], float]) -> float:
    generated, real = run
    if generated.frames is None or real.frames is None:
        return float("nan")
    return measure(generated.frames, real.frames)


def _features(run: tuple[VideoClip, VideoClip]) -> float:
    generated, real = run
    if generated.features is None or real.features is None:
        return float("nan")
    return video_metrics.frechet_distance(generated.features, real.features)


VIDEO_L1 = Metric("video_l1", partial(_paired_frames, measure=video_metrics.l1), higher_is_better=False,
                  deterministic=True, description="mean absolute difference of paired frames, intensities in [0, 1]")
VIDEO_PSNR = Metric("video_psnr", partial(_paired_frames, measure=video_metrics.psnr), higher_is_better=True,
                    unit="dB", deterministic=True, description="PSNR of paired frames (scikit-image)")
VIDEO_SSIM = Metric("video_ssim", partial(_paired_frames, measure=video_metrics.ssim), higher_is_better=True,
                    deterministic=True, description="mean SSIM of paired frames (scikit-image)")
FRECHET = Metric("frechet_distance", _features, higher_is_better=False, deterministic=True,
                 description="Fréchet distance of Gaussians fitted to generated and real features (FID/FID-VID/FVD)")
