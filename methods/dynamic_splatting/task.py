"""The contract `dynamic_splatting.motion`: recover every Gaussian's 3D trajectory in a generated dynamic scene
from a monocular capture (USplat4D's setting, arXiv 2510.12768, in miniature).

A method sees the training views (one camera per frame on a narrow arc), each Gaussian's appearance (colour,
size, opacity: the canonical model), its object segment (the per-object masks a pipeline gets from a 2D
segmenter at frame 0, lifted to its Gaussians) and a monocular motion prior (the role of depth and 2D-track
priors: exact at frame 0, noisy in depth, stale where the training view does not see the Gaussian). It returns a
`MotionEstimate`. Predictions table: one row per (frame, Gaussian) with the estimated `x, y, z`, and per
Gaussian the method's `uncertainty` and the positions `assessed_x, assessed_y, assessed_z` it describes (NaN
where the method has none). Scoring renders the held-out extreme views from the table and reads the truth.
"""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from harness import Instance, Metric, Task
from harness.contracts import reject_split_keys
from harness.predictions_schema import Column, PredictionsSchema
from methods.dynamic_splatting.scenes import SceneSpec, generate

if TYPE_CHECKING:  # torch-backed modules: `harness validate` and `plan` import this contract without torch
    from methods.dynamic_splatting.cameras import Camera
    from methods.dynamic_splatting.motion import MotionProblem
    from methods.dynamic_splatting.observation import Observation


@dataclass(frozen=True)
class MotionEstimate:
    """Positions (T, N, 3); optionally a per-Gaussian uncertainty (N,) and the positions (T, N, 3) it rates."""

    positions: np.ndarray
    uncertainty: np.ndarray | None = None
    assessed: np.ndarray | None = None


@dataclass(frozen=True)
class MotionInputs:
    train_images: np.ndarray  # (T, H, W, 3)
    cameras: tuple[Camera, ...]
    colours: np.ndarray
    scales: np.ndarray
    opacities: np.ndarray
    prior: np.ndarray         # (T, N, 3)
    segments: np.ndarray      # (N,) int: the canonical model's object segment per Gaussian, -1 static

    def problem(self) -> MotionProblem:
        import torch

        from methods.dynamic_splatting.motion import MotionProblem
        from methods.dynamic_splatting.views import Appearance

        return MotionProblem(Appearance(self.colours, self.scales, self.opacities), list(self.cameras),
                             torch.as_tensor(self.train_images, dtype=torch.float32),
                             torch.as_tensor(self.prior, dtype=torch.float32))


class DynamicMotion(Task):
    """Each seed generates a new scene of the dataset's kind and a new motion prior."""

    # Every Gaussian has a row in every frame (scored checks that the frames are the scene's); the per-Gaussian
    # uncertainty repeats on its rows, and it and the positions it rates are empty where a method has none.
    predictions_schema = PredictionsSchema(
        (Column("frame", "integer"), Column("gaussian", "integer", description="the Gaussian's index in the scene"),
         Column("x", "number"), Column("y", "number"), Column("z", "number"),
         Column("uncertainty", "number", may_be_empty=True, description="the Gaussian's, the same in every frame"),
         *(Column(f"assessed_{axis}", "number", may_be_empty=True, description="the position the uncertainty rates")
           for axis in "xyz")),
        sample="gaussian", per=("frame",))

    def test_samples(self, instance: Instance) -> range:
        return range(instance.truth.scene.positions.shape[1])

    def check_split(self, split: Mapping[str, Any]) -> None:
        reject_split_keys(split, "dynamic_splatting.motion", "the scene's sizes are the loader's arguments")

    def instance(self, data: SceneSpec, split: Mapping[str, Any], seed: int) -> Instance:
        from methods.dynamic_splatting.observation import observe

        truth = observe(generate(data, seed), seed)
        scene = truth.scene
        inputs = MotionInputs(truth.train_images, tuple(truth.train_cameras), scene.colours, scene.scales,
                              scene.opacities, truth.prior, scene.objects)
        return Instance(inputs=inputs, truth=truth)

    def tiny_instance(self, seed: int) -> Instance:
        """A rigid scene of 4 frames, 32 x 32 pixels and 20 Gaussians per blob."""
        return self.instance(SceneSpec("rigid", frames=4, image_size=32, gaussians_per_blob=20), {}, seed)

    def predictions(self, instance: Instance, output: Any) -> pd.DataFrame:
        truth: Observation = instance.truth
        frames, count, _ = truth.scene.positions.shape
        positions, uncertainty, assessed = _checked(output, frames, count)
        table = pd.DataFrame({"frame": np.repeat(np.arange(frames), count), "gaussian": np.tile(np.arange(count),
                                                                                                frames)})
        table[["x", "y", "z"]] = positions.reshape(-1, 3)
        table["uncertainty"] = np.tile(uncertainty, frames)
        table[["assessed_x", "assessed_y", "assessed_z"]] = assessed.reshape(-1, 3)
        return table

    def score(self, instance: Instance, predictions: pd.DataFrame, metrics: Mapping[str, Metric]) -> dict[str, float]:
        from methods.dynamic_splatting.scored import scored_motion

        scored = scored_motion(instance.truth, predictions)
        return {key: metric(scored) for key, metric in metrics.items()}


def _checked(output: Any, frames: int, count: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The estimate's arrays (NaN for what it lacks), a `ValueError` saying what is wrong with a malformed one."""
    if not isinstance(output, MotionEstimate):
        raise ValueError(f"a dynamic-splatting method returns a MotionEstimate, got {type(output).__name__}")
    positions = np.asarray(output.positions, dtype=np.float64)
    if positions.shape != (frames, count, 3) or not np.isfinite(positions).all():
        raise ValueError(f"positions must be finite, shaped ({frames}, {count}, 3), got {positions.shape}")
    uncertainty = np.full(count, np.nan) if output.uncertainty is None else np.asarray(output.uncertainty, float)
    assessed = positions if output.assessed is None else np.asarray(output.assessed, dtype=np.float64)
    if uncertainty.shape != (count,) or assessed.shape != positions.shape:
        raise ValueError(f"uncertainty is ({count},) and assessed ({frames}, {count}, 3), got "
                         f"{uncertainty.shape} and {assessed.shape}")
    return positions, uncertainty, assessed
