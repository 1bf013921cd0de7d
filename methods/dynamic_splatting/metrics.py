"""The family's metrics, pure functions of a `ScoredMotion`.

View metrics average over every scored frame of every extreme view (the side and the back): PSNR / SSIM on the whole
image, mPSNR / mSSIM on the co-visible pixels (DyCheck's masked protocol). Trajectory metrics read the moving
Gaussians after frame 0 (the canonical frame the prior gives exactly): end-point error, the same over the frames
whose training view does not see the Gaussian (occluded intervals), and PCK, the share within `PCK_RADIUS`.
Calibration: Spearman's rho between a method's per-Gaussian uncertainty and the mean error of the positions it
rates (scipy); a method without uncertainty (or a constant one) ranks nothing and scores 0.
"""
from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

import numpy as np

from harness import Metric
from methods.dynamic_splatting.image_metrics import psnr, ssim

if TYPE_CHECKING:  # scored.py renders with torch; the metric declarations stay torch-free for `validate`
    from methods.dynamic_splatting.scored import ScoredMotion, ViewPair

PCK_RADIUS = 0.1  # world units: 1.7 pixels of a 48-pixel view of the 2.8-unit scene


def over_views(run: ScoredMotion, figure: Callable[..., float],
               mask_of: Callable[[ViewPair, int], np.ndarray | None]) -> float:
    """`figure` (PSNR, SSIM) of every scored frame of every extreme view over `mask_of(view, frame)` (None: the
    whole image), averaged; frames whose mask is empty (NaN) are left out, NaN when every one is."""
    values = [figure(view.rendered[t], view.target[t], mask_of(view, t))
              for view in run.views for t in range(view.target.shape[0])]
    return float(np.nanmean(values)) if not np.isnan(values).all() else float("nan")


def _whole(view: ViewPair, frame: int) -> None:
    return None


def _covisible(view: ViewPair, frame: int) -> np.ndarray:
    return view.mask[frame]


def psnr_extreme(run: ScoredMotion) -> float:
    return over_views(run, psnr, _whole)


def ssim_extreme(run: ScoredMotion) -> float:
    return over_views(run, ssim, _whole)


def mpsnr_extreme(run: ScoredMotion) -> float:
    return over_views(run, psnr, _covisible)


def mssim_extreme(run: ScoredMotion) -> float:
    return over_views(run, ssim, _covisible)


def _scored_errors(run: ScoredMotion, occluded_only: bool) -> np.ndarray:
    chosen = np.zeros_like(run.seen)
    chosen[1:] = run.moving[None, :]
    if occluded_only:
        chosen &= ~run.seen
    return run.error[chosen]


def epe(run: ScoredMotion) -> float:
    """Mean 3D end-point error (world units) of the moving Gaussians after frame 0."""
    return float(_scored_errors(run, occluded_only=False).mean())


def epe_occluded(run: ScoredMotion) -> float:
    """The same over the (frame, Gaussian) pairs the training view does not see; NaN if there are none."""
    errors = _scored_errors(run, occluded_only=True)
    return float(errors.mean()) if errors.size else float("nan")


def pck(run: ScoredMotion) -> float:
    """Per cent of moving (frame, Gaussian) positions within PCK_RADIUS of the truth."""
    return 100.0 * float((_scored_errors(run, occluded_only=False) < PCK_RADIUS).mean())


def uncertainty_spearman(run: ScoredMotion) -> float:
    """Spearman's rho (scipy) between uncertainty and the rated positions' mean error over moving Gaussians."""
    from scipy.stats import spearmanr

    u, error = run.uncertainty[run.moving], run.assessed_error[run.moving]
    if np.isnan(u).all() or np.ptp(u) == 0:
        return 0.0
    return float(spearmanr(u, error).statistic)


PSNR_EXTREME = Metric("psnr_extreme", psnr_extreme, higher_is_better=True, unit="dB",
                      description="PSNR of the extreme views, mean over views and frames")
SSIM_EXTREME = Metric("ssim_extreme", ssim_extreme, higher_is_better=True,
                      description="SSIM of the extreme views, mean over views and frames")
MPSNR_EXTREME = Metric("mpsnr_extreme", mpsnr_extreme, higher_is_better=True, unit="dB",
                       description="PSNR over the co-visible pixels of the extreme views")
MSSIM_EXTREME = Metric("mssim_extreme", mssim_extreme, higher_is_better=True,
                       description="SSIM map averaged over the co-visible pixels of the extreme views")
EPE = Metric("epe", epe, higher_is_better=False, description="mean 3D end-point error of the moving Gaussians")
EPE_OCCLUDED = Metric("epe_occluded", epe_occluded, higher_is_better=False,
                      description="mean 3D end-point error where the training view does not see the Gaussian")
PCK = Metric("pck", pck, higher_is_better=True, unit="%", description="per cent of positions within 0.1 units")
UNCERTAINTY_SPEARMAN = Metric("uncertainty_spearman", uncertainty_spearman, higher_is_better=True,
                              description="Spearman's rho between per-Gaussian uncertainty and error")
