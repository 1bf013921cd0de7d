"""Open-loop planning on nuScenes-format logs: plan 6 ego waypoints per keyframe, scored from the table.

A planner sees each keyframe's driving command (derived from the logged future, as every
nuScenes open-loop planner does), the ego velocity and the agents' current boxes, and returns
(N, 6, 2) waypoints in each keyframe's LiDAR frame (x right, y forward), one plan per keyframe.
The logged future itself is in the inputs as `oracle_*`, only so the reference planners can
give known answers (ground-truth copy, command lag, noise); a real planner must not read it.
"""
from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from harness import DataError, Instance, Metric, Task
from harness.predictions_schema import Column, PredictionsSchema
from methods.driving.evaluation import PlanningEvaluation
from methods.driving.log import PlanningLog
from methods.driving.predictions_io import X_COLUMNS, Y_COLUMNS, plans_to_table, table_to_plans


@dataclass(frozen=True)
class PlanningInputs:
    """What a planner may see, frames in evaluation order."""

    sample_token: np.ndarray    # str (N,)
    scene: np.ndarray           # str (N,)
    command: np.ndarray         # int (N,): 0 right, 1 left, 2 straight (`commands.py`)
    ego_velocity: np.ndarray    # (N, 2) m/s in the keyframe's frame
    boxes: np.ndarray           # (K, 5) agents now: x, y, length, width, yaw
    box_frame: np.ndarray       # (K,) the frame row of each box
    oracle_trajectory: np.ndarray  # (N, 6, 2) the logged future: reference planners only
    oracle_mask: np.ndarray        # (N, 6)

    def __len__(self) -> int:
        return int(self.sample_token.shape[0])


def planning_inputs(log: PlanningLog) -> PlanningInputs:
    now = log.box_step == 0
    return PlanningInputs(log.sample_token, log.scene, log.command, log.ego_velocity, log.boxes[now],
                          log.box_frame[now], log.gt_trajectory, log.gt_mask)


def _scene_names(split: Mapping[str, Any]) -> list[str] | None:
    unknown = sorted(str(k) for k in set(split) - {"scenes"})
    if unknown:
        raise ValueError(f"unknown split key {unknown[0]!r}; allowed keys: scenes (a list of scene names)")
    scenes = split.get("scenes")
    if scenes is None:
        return None
    if not isinstance(scenes, list) or not scenes or not all(isinstance(s, str) for s in scenes):
        raise ValueError(f"split key 'scenes' must be a non-empty list of scene names, got {scenes!r}")
    return scenes


class OpenLoopPlanning(Task):
    """Score planned ego trajectories: L2 and collision rate (both conventions, both geometries), FCP."""

    # One row per keyframe (methods/driving/predictions_io.py); the test samples are the scored keyframes (3 s
    # future logged), and rows of others (unscored, or of another log) are left out.
    predictions_schema = PredictionsSchema(
        (Column("sample_token", "text", description="the nuScenes sample token of the keyframe"),
         *(Column(name, "number", description="lateral waypoint (m, + right) in the keyframe's LiDAR frame")
           for name in X_COLUMNS),
         *(Column(name, "number", description="forward waypoint (m, + ahead) in the keyframe's LiDAR frame")
           for name in Y_COLUMNS)),
        sample="sample_token", other_samples_ok=True)

    def test_samples(self, instance: Instance) -> list[str]:
        log: PlanningLog = instance.truth
        return log.sample_token[log.complete].astype(str).tolist()

    def check_split(self, split: Mapping[str, Any]) -> None:
        _scene_names(split)

    def instance(self, data: PlanningLog, split: Mapping[str, Any], seed: int) -> Instance:
        """The whole log (or the split's `scenes`); the seed only seeds stochastic planners."""
        log = data
        scenes = _scene_names(split)
        if scenes is not None:
            unknown = sorted(set(scenes) - set(log.scene.tolist()))
            if unknown:
                raise DataError(f"dataset '{data.name}' has no scene {unknown[0]!r}", field="split.scenes")
            log = log.take(np.flatnonzero(np.isin(log.scene, scenes)))
        if not log.complete.any():
            raise DataError(f"dataset '{data.name}' has no keyframe with a complete 3 s future to score",
                            hint="Scenes need at least 7 keyframes.")
        return Instance(inputs=planning_inputs(log), truth=log)

    def tiny_instance(self, seed: int) -> Instance:
        """Two generated scenes of 12 keyframes (written in nuScenes format, read back through the devkit)."""
        from methods.driving.data import generated_scenes

        return self.instance(generated_scenes(num_scenes=2, keyframes=12, seed=seed), {}, seed)

    def hide_test_labels(self, inputs: PlanningInputs, rng: np.random.Generator) -> PlanningInputs:
        """The logged futures shuffled across keyframes: only the reference planners may read them."""
        order = rng.permutation(len(inputs))
        return dataclasses.replace(inputs, oracle_trajectory=inputs.oracle_trajectory[order],
                                   oracle_mask=inputs.oracle_mask[order])

    def predictions(self, instance: Instance, output: Any) -> pd.DataFrame:
        plans = np.asarray(output, dtype=np.float64)
        n = len(instance.inputs)
        if plans.shape != (n, 6, 2):
            raise ValueError(f"a planner must return (frames, 6, 2) waypoints, shape ({n}, 6, 2), got {plans.shape}")
        return plans_to_table(instance.inputs.sample_token, plans)

    def score(self, instance: Instance, predictions: pd.DataFrame, metrics: Mapping[str, Metric]) -> dict[str, float]:
        log: PlanningLog = instance.truth
        plans = table_to_plans(predictions, log.sample_token)
        evaluation = PlanningEvaluation(log, plans)
        return {key: metric(evaluation) for key, metric in metrics.items()}

    def resample(self, instance: Instance, rng: np.random.Generator) -> Instance:
        """Scenes drawn with replacement (FCP counts within scenes, so frames cannot be drawn alone)."""
        log: PlanningLog = instance.truth
        scenes, first = np.unique(log.scene, return_index=True)
        scenes = scenes[np.argsort(first)]
        draw = rng.integers(0, scenes.size, scenes.size)
        rows = [np.flatnonzero(log.scene == scenes[d]) for d in draw]
        suffix = np.concatenate([np.full(r.size, f"#{i}") for i, r in enumerate(rows)])
        sampled = log.take(np.concatenate(rows), scene_suffix=suffix)
        return Instance(planning_inputs(sampled), sampled)
