"""Where an extreme view's error comes from (issue 61: the cause of USplat4D's extreme-view loss), pure
functions of a `ScoredMotion`, and what the generated scene hands every method.

Regions (the truth's labels, views.region_labels, so every method is scored on the same pixels): the moving
objects' footprint, each segment's, the static pillar's, the background (where a misplaced Gaussian lands) and the
footprint of Gaussians no training view saw; PSNR over each, averaged over views and frames like mPSNR.
Frames: each scored frame's occluded share (moving Gaussians its training view does not see); PSNR over the
frames above the scene's median share and over the rest, and Spearman's rho over frames between a frame's PSNR
and its occluded share. Scene: the occluded share of moving (frame, Gaussian) pairs and the prior's end-point
error where the training view sees the Gaussian and where it does not.
"""
from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

import numpy as np
from scipy.stats import spearmanr

from harness import Metric
from methods.dynamic_splatting.image_metrics import psnr
from methods.dynamic_splatting.metrics import over_views
from methods.dynamic_splatting.scenes import BACKGROUND, STATIC

if TYPE_CHECKING:
    from methods.dynamic_splatting.scored import ScoredMotion, ViewPair


def region_psnr(select: Callable[[ViewPair], np.ndarray]) -> Callable[[ScoredMotion], float]:
    """PSNR over the pixels `select(view)` (F, H, W) marks, per view and frame, averaged."""
    def figure(run: ScoredMotion) -> float:
        return over_views(run, psnr, lambda view, frame: select(view)[frame])
    return figure


def frame_psnr(run: ScoredMotion) -> np.ndarray:
    """(F,) each scored frame's whole-image PSNR, mean over the extreme views."""
    return np.mean([[psnr(view.rendered[t], view.target[t]) for t in range(view.target.shape[0])]
                    for view in run.views], axis=0)


def occluded_share(run: ScoredMotion) -> np.ndarray:
    """(F,) the share of moving Gaussians each scored frame's training view does not see."""
    return (~run.seen[1:, run.moving]).mean(axis=1)


def _frames_psnr(run: ScoredMotion, occluded: bool) -> float:
    share = occluded_share(run)
    chosen = share > np.median(share) if occluded else share <= np.median(share)
    return float(frame_psnr(run)[chosen].mean()) if chosen.any() else float("nan")


def frame_psnr_occlusion_spearman(run: ScoredMotion) -> float:
    values, share = frame_psnr(run), occluded_share(run)
    if np.ptp(share) == 0 or not np.isfinite(values).all() or np.ptp(values) == 0:
        return float("nan")
    return float(spearmanr(values, share).statistic)


def occluded_pair_share(run: ScoredMotion) -> float:
    """Per cent of moving (frame, Gaussian) pairs after frame 0 that the frame's training view does not see."""
    return 100.0 * float(occluded_share(run).mean())


def _prior_epe(run: ScoredMotion, seen: bool) -> float:
    chosen = (run.seen[1:] == seen) & run.moving[None, :]
    return float(run.prior_error[1:][chosen].mean()) if chosen.any() else float("nan")


def _metric(name: str, function: Callable[[ScoredMotion], float], description: str, higher: bool = True,
            unit: str = "dB") -> Metric:
    return Metric(name, function, higher_is_better=higher, unit=unit, description=description)


PSNR_MOVING = _metric("psnr_moving", region_psnr(lambda v: v.regions >= 0), "PSNR over the moving objects' pixels")
PSNR_STATIC = _metric("psnr_static", region_psnr(lambda v: v.regions == STATIC), "PSNR over the static pillar")
PSNR_BACKGROUND = _metric("psnr_background", region_psnr(lambda v: v.regions == BACKGROUND),
                          "PSNR over the background (where misplaced Gaussians land)")
PSNR_UNSEEN = _metric("psnr_unseen_footprint", region_psnr(lambda v: v.unseen),
                      "PSNR over the footprint of Gaussians no training view saw")


def _segment_psnr(segment: int) -> Metric:
    return _metric(f"psnr_segment_{segment}", region_psnr(lambda v: v.regions == segment),
                   f"PSNR over object segment {segment} (NaN where the scene has none)")


PSNR_SEGMENT_0, PSNR_SEGMENT_1, PSNR_SEGMENT_2 = (_segment_psnr(k) for k in range(3))
PSNR_OCCLUDED_FRAMES = _metric("psnr_occluded_frames", lambda run: _frames_psnr(run, True),
                               "PSNR over the frames whose occluded share is above the scene's median")
PSNR_CLEAR_FRAMES = _metric("psnr_clear_frames", lambda run: _frames_psnr(run, False),
                            "PSNR over the frames whose occluded share is at or below the median")
FRAME_PSNR_OCCLUSION_SPEARMAN = _metric(
    "frame_psnr_occlusion_spearman", frame_psnr_occlusion_spearman,
    "Spearman's rho over frames between a frame's PSNR and its share of occluded moving Gaussians", True, "")
OCCLUDED_PAIR_SHARE = _metric("occluded_pair_share", occluded_pair_share,
                              "per cent of moving (frame, Gaussian) pairs the training view does not see", False, "%")
PRIOR_EPE_SEEN = _metric("prior_epe_seen", lambda run: _prior_epe(run, True),
                         "the motion prior's end-point error where the training view sees the Gaussian", False, "")
PRIOR_EPE_UNSEEN = _metric("prior_epe_unseen", lambda run: _prior_epe(run, False),
                           "the motion prior's end-point error where the training view does not see it", False, "")
