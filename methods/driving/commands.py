"""The driving command of a trajectory: the SparseDrive/VAD converter's rule.

The command is read from the lateral coordinate x of the 3 s waypoint in the current
LiDAR frame (x right, y forward): Turn Right if x >= 2 m, Turn Left if x <= -2 m, else
Go Straight. The integer codes are the converter's one-hot order (`gt_ego_fut_cmd`).
The ground-truth command is derived from the ground-truth future itself: the known
open-loop leak of nuScenes planning (spec `flowad.md`, quirk 3).
"""
from __future__ import annotations

import numpy as np

TURN_RIGHT, TURN_LEFT, GO_STRAIGHT = 0, 1, 2
COMMAND_NAMES = {TURN_RIGHT: "turn right", TURN_LEFT: "turn left", GO_STRAIGHT: "go straight"}
COMMAND_THRESHOLD_M = 2.0


def driving_command(lateral_3s: np.ndarray | float, threshold: float = COMMAND_THRESHOLD_M) -> np.ndarray:
    """Command code(s) from the 3 s lateral offset(s); both thresholds are inclusive, as released."""
    x = np.asarray(lateral_3s, dtype=np.float64)
    return np.where(x >= threshold, TURN_RIGHT, np.where(x <= -threshold, TURN_LEFT, GO_STRAIGHT)).astype(np.int64)


def last_valid_lateral(trajectory: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """x of the last valid waypoint of each (N, 6, 2) trajectory: a frame near the end of a scene
    has an incomplete future, and its command comes from where its future stops (0 when none)."""
    mask = np.asarray(mask, dtype=bool)
    last = np.where(mask.any(axis=1), mask.shape[1] - 1 - np.argmax(mask[:, ::-1], axis=1), -1)
    lateral = trajectory[np.arange(len(trajectory)), np.maximum(last, 0), 0]
    return np.where(last >= 0, lateral, 0.0)
