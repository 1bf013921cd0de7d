"""The planning log: what a nuScenes-format dataset becomes once read, one row per keyframe.

Every position is in that keyframe's LiDAR frame (x right, y forward, metres), the frame
the SparseDrive/VAD converters and FlowAD's evaluation use. The logged ego future is the
LiDAR sensor's position at the next 6 keyframes (0.5 s apart), as `gt_ego_fut_trajs`
cumulated; a step past the end of the scene is masked and padded with the last valid one.
"""
from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from methods.driving.commands import driving_command, last_valid_lateral

FUTURE_STEPS = 6


@dataclass(frozen=True)
class PlanningLog:
    """Keyframes in evaluation order (by timestamp, so scene by scene), with the agents' boxes.

    Boxes are (x, y, length, width, yaw) rows; `box_frame` is the keyframe row they belong to
    and `box_step` the keyframe they were annotated at: 0 = now, 1..6 = the future keyframes.
    """

    name: str
    sample_token: np.ndarray   # str (N,)
    scene: np.ndarray          # str (N,): scene name
    timestamp: np.ndarray      # int64 (N,), microseconds
    gt_trajectory: np.ndarray  # float (N, 6, 2)
    gt_mask: np.ndarray        # bool (N, 6)
    ego_velocity: np.ndarray   # float (N, 2), m/s, from the previous keyframe (the next one at a scene start)
    boxes: np.ndarray          # float (K, 5)
    box_frame: np.ndarray      # int64 (K,)
    box_step: np.ndarray       # int64 (K,)

    def __len__(self) -> int:
        return int(self.sample_token.shape[0])

    @property
    def complete(self) -> np.ndarray:
        """Frames whose whole 3 s future is logged: the only ones any metric scores."""
        return np.asarray(self.gt_mask.all(axis=1))  # numpy's stubs allow a scalar here

    @property
    def command(self) -> np.ndarray:
        """The ground-truth driving command of each frame (from its own future: the open-loop leak)."""
        return driving_command(last_valid_lateral(self.gt_trajectory, self.gt_mask))

    def take(self, rows: np.ndarray, scene_suffix: np.ndarray | None = None) -> "PlanningLog":
        """The log of `rows` (repeats allowed), boxes re-indexed; `scene_suffix` keeps repeated scenes apart."""
        rows = np.asarray(rows, dtype=np.int64)
        order = np.argsort(self.box_frame, kind="stable")
        starts = np.searchsorted(self.box_frame[order], np.arange(len(self) + 1))
        picked = [order[starts[r]:starts[r + 1]] for r in rows]
        box_rows = np.concatenate(picked) if picked else np.zeros(0, np.int64)
        new_frame = np.repeat(np.arange(rows.size), [p.size for p in picked]) if picked else box_rows
        scene = self.scene[rows]
        if scene_suffix is not None:
            scene = np.char.add(scene.astype(str), np.asarray(scene_suffix).astype(str))
        return replace(
            self, sample_token=self.sample_token[rows], scene=scene, timestamp=self.timestamp[rows],
            gt_trajectory=self.gt_trajectory[rows], gt_mask=self.gt_mask[rows], ego_velocity=self.ego_velocity[rows],
            boxes=self.boxes[box_rows], box_frame=new_frame.astype(np.int64), box_step=self.box_step[box_rows],
        )
