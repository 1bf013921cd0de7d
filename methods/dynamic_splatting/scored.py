"""A predictions table read against the truth: the extreme views rendered from the predicted positions, and the
per-Gaussian trajectory errors; every metric is a function of a `ScoredMotion`."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
import torch

from harness import DataError
from methods.dynamic_splatting.observation import Observation
from methods.dynamic_splatting.views import Appearance


@dataclass(frozen=True)
class ViewPair:
    """Scored frames of a view: renders beside their ground truth, co-visibility masks, the truth's regions and
    never-seen footprints (views.region_labels), each (F, H, W[, 3])."""

    rendered: np.ndarray
    target: np.ndarray
    mask: np.ndarray
    regions: np.ndarray
    unseen: np.ndarray


@dataclass(frozen=True)
class ScoredMotion:
    views: tuple[ViewPair, ...]
    error: np.ndarray          # (T, N) end-point error (world units); only moving Gaussians are scored
    moving: np.ndarray         # (N,) bool
    seen: np.ndarray           # (T, N) bool: the training view of that frame saw the Gaussian
    uncertainty: np.ndarray    # (N,), NaN when the method gave none
    assessed_error: np.ndarray  # (N,) mean end-point error of the positions the uncertainty rates
    prior_error: np.ndarray    # (T, N) end-point error of the motion prior (what the scene hands every method)


def _positions(predictions: pd.DataFrame, columns: list[str], frames: int, count: int) -> np.ndarray:
    ordered = predictions.sort_values(["frame", "gaussian"])
    return ordered[columns].to_numpy(np.float64).reshape(frames, count, 3)


def scored_motion(truth: Observation, predictions: pd.DataFrame) -> ScoredMotion:
    """`predictions` checked by the engine: every Gaussian once in each frame it has; the frames must be the scene's."""
    frames, count, _ = truth.scene.positions.shape
    found = np.unique(predictions["frame"].to_numpy())
    if not np.array_equal(found, np.arange(frames)):
        raise DataError(f"the predictions' frames are {_listed(found)}, the scene's 0 to {frames - 1}", field="frame",
                        hint="Give every Gaussian a row in every frame, frame 0 (the canonical one) included.")
    positions = _positions(predictions, ["x", "y", "z"], frames, count)
    assessed = _positions(predictions, ["assessed_x", "assessed_y", "assessed_z"], frames, count)
    uncertainty = predictions[predictions["frame"] == 0].sort_values("gaussian")["uncertainty"].to_numpy(float)
    appearance = Appearance.of(truth.scene)
    # frame 0 is the canonical frame every method is given exactly: only the later frames are scored
    views = tuple(ViewPair(appearance.render(torch.as_tensor(positions), view.cameras).image.numpy()[1:],
                           view.images[1:], view.masks[1:], view.regions[1:], view.unseen[1:])
                  for view in truth.extreme)
    error = np.linalg.norm(positions - truth.scene.positions, axis=-1)
    assessed_error = np.linalg.norm(assessed - truth.scene.positions, axis=-1).mean(axis=0)
    prior_error = np.linalg.norm(truth.prior - truth.scene.positions, axis=-1)
    return ScoredMotion(views, error, truth.scene.moving, truth.seen, uncertainty, assessed_error, prior_error)


def _listed(values: np.ndarray, shown: int = 6) -> str:
    words = [str(v) for v in values[:shown]] + (["..."] if len(values) > shown else [])
    return ", ".join(words) or "none"
