"""Kinematic skeletons (a joint tree with rest-pose bone offsets, metres, y up) and forward kinematics.

Two layouts: Human3.6M's 17 joints and the first 22 joints of SMPL (its body without the hands), with the
parent order of each; a bone offset is the child's rest position relative to its parent's. Forward kinematics
composes the local rotations down the tree (global_j = global_parent(j) @ local_j; p_j = p_parent + global_parent
@ offset_j). Retargeting rescales bones on joint positions alone, so it works on users' arrays too.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class Skeleton:
    """A joint tree: `parents[j]` < j (-1 for the root), `offsets[j]` the rest bone from the parent (metres)."""

    name: str
    joints: tuple[str, ...]
    parents: tuple[int, ...]
    offsets: np.ndarray  # (joints, 3)

    @property
    def num_joints(self) -> int:
        return len(self.joints)

    def index(self, joint: str) -> int | None:
        return self.joints.index(joint) if joint in self.joints else None


def _skeleton(name: str, bones: list[tuple[str, str | None, tuple[float, float, float]]]) -> Skeleton:
    joints = tuple(joint for joint, _, _ in bones)
    parents = tuple(-1 if parent is None else joints.index(parent) for _, parent, _ in bones)
    return Skeleton(name, joints, parents, np.array([offset for _, _, offset in bones], dtype=np.float64))


# x: the figure's left, y: up, z: forward. Proportions of a 1.75 m adult.
H36M17 = _skeleton("h36m17", [
    ("pelvis", None, (0.0, 0.95, 0.0)),
    ("r_hip", "pelvis", (-0.10, -0.05, 0.0)), ("r_knee", "r_hip", (0.0, -0.43, 0.0)),
    ("r_ankle", "r_knee", (0.0, -0.42, 0.0)),
    ("l_hip", "pelvis", (0.10, -0.05, 0.0)), ("l_knee", "l_hip", (0.0, -0.43, 0.0)),
    ("l_ankle", "l_knee", (0.0, -0.42, 0.0)),
    ("spine", "pelvis", (0.0, 0.22, 0.0)), ("thorax", "spine", (0.0, 0.24, 0.0)),
    ("neck", "thorax", (0.0, 0.08, 0.0)), ("head", "neck", (0.0, 0.14, 0.0)),
    ("l_shoulder", "thorax", (0.17, 0.0, 0.0)), ("l_elbow", "l_shoulder", (0.0, -0.28, 0.0)),
    ("l_wrist", "l_elbow", (0.0, -0.25, 0.0)),
    ("r_shoulder", "thorax", (-0.17, 0.0, 0.0)), ("r_elbow", "r_shoulder", (0.0, -0.28, 0.0)),
    ("r_wrist", "r_elbow", (0.0, -0.25, 0.0)),
])

SMPL22 = _skeleton("smpl22", [
    ("pelvis", None, (0.0, 0.93, 0.0)),
    ("l_hip", "pelvis", (0.09, -0.08, 0.0)), ("r_hip", "pelvis", (-0.09, -0.08, 0.0)),
    ("spine1", "pelvis", (0.0, 0.11, -0.01)),
    ("l_knee", "l_hip", (0.02, -0.38, 0.0)), ("r_knee", "r_hip", (-0.02, -0.38, 0.0)),
    ("spine2", "spine1", (0.0, 0.13, 0.01)),
    ("l_ankle", "l_knee", (0.0, -0.40, -0.02)), ("r_ankle", "r_knee", (0.0, -0.40, -0.02)),
    ("spine3", "spine2", (0.0, 0.05, 0.0)),
    ("l_foot", "l_ankle", (0.02, -0.05, 0.12)), ("r_foot", "r_ankle", (-0.02, -0.05, 0.12)),
    ("neck", "spine3", (0.0, 0.21, -0.02)),
    ("l_collar", "spine3", (0.08, 0.11, -0.01)), ("r_collar", "spine3", (-0.08, 0.11, -0.01)),
    ("head", "neck", (0.0, 0.09, 0.05)),
    ("l_shoulder", "l_collar", (0.12, 0.04, -0.01)), ("r_shoulder", "r_collar", (-0.12, 0.04, -0.01)),
    ("l_elbow", "l_shoulder", (0.0, -0.26, 0.0)), ("r_elbow", "r_shoulder", (0.0, -0.26, 0.0)),
    ("l_wrist", "l_elbow", (0.0, -0.25, 0.0)), ("r_wrist", "r_elbow", (0.0, -0.25, 0.0)),
])

SKELETONS: dict[str, Skeleton] = {s.name: s for s in (H36M17, SMPL22)}
# SMPL's full 24-joint parent order (the hands' 22 and 23 on the wrists 20 and 21), for users' SMPL arrays.
SMPL24_PARENTS = (-1, 0, 0, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 9, 9, 12, 13, 14, 16, 17, 18, 19, 20, 21)
PARENTS: dict[str, tuple[int, ...]] = {"h36m17": H36M17.parents, "smpl22": SMPL22.parents, "smpl24": SMPL24_PARENTS}


def euler_matrices(angles: np.ndarray) -> np.ndarray:
    """Rotation matrices R = Rz(c) @ Ry(b) @ Rx(a) for angles (..., 3) = (a, b, c) in radians."""
    a, b, c = (angles[..., k] for k in range(3))
    ca, sa, cb, sb, cc, sc = np.cos(a), np.sin(a), np.cos(b), np.sin(b), np.cos(c), np.sin(c)
    one, zero = np.ones_like(a), np.zeros_like(a)
    rx = np.stack([one, zero, zero, zero, ca, -sa, zero, sa, ca], axis=-1)
    ry = np.stack([cb, zero, sb, zero, one, zero, -sb, zero, cb], axis=-1)
    rz = np.stack([cc, -sc, zero, sc, cc, zero, zero, zero, one], axis=-1)
    shape = (*angles.shape[:-1], 3, 3)
    return rz.reshape(shape) @ ry.reshape(shape) @ rx.reshape(shape)


def forward_kinematics(skeleton: Skeleton, local_angles: np.ndarray, root_position: np.ndarray,
                       bone_scale: np.ndarray | None = None) -> np.ndarray:
    """Joint positions (frames, joints, 3) from local Euler angles (frames, joints, 3), the root's position
    (frames, 3) and an optional per-bone length factor (joints,): the root's own angles orient the whole body."""
    offsets = skeleton.offsets if bone_scale is None else skeleton.offsets * bone_scale[:, None]
    local = euler_matrices(local_angles)
    frames = local_angles.shape[0]
    rotation = np.empty((frames, skeleton.num_joints, 3, 3))
    position = np.empty((frames, skeleton.num_joints, 3))
    for joint, parent in enumerate(skeleton.parents):
        if parent < 0:
            rotation[:, joint], position[:, joint] = local[:, joint], root_position
            continue
        rotation[:, joint] = rotation[:, parent] @ local[:, joint]
        position[:, joint] = position[:, parent] + rotation[:, parent] @ offsets[joint]
    return position


def check_parents(parents: tuple[int, ...] | np.ndarray, num_joints: int) -> str | None:
    """Why `parents` is not a joint tree over `num_joints` joints in topological order, or None."""
    if len(parents) != num_joints:
        return f"{len(parents)} parents for {num_joints} joints"
    if parents[0] != -1 or any(not -1 < int(p) < j for j, p in enumerate(parents) if j > 0):
        return "the root comes first (parent -1) and every other joint's parent precedes it"
    return None


def bone_lengths(positions: np.ndarray, parents: tuple[int, ...]) -> np.ndarray:
    """Each bone's length (..., joints) from joint positions (..., joints, 3); 0 for the root."""
    parent_positions = positions[..., [max(p, 0) for p in parents], :]
    return np.linalg.norm(positions - parent_positions, axis=-1)


def retarget(positions: np.ndarray, parents: tuple[int, ...], scale: np.ndarray) -> np.ndarray:
    """Joint positions (..., joints, 3) with bone j's length multiplied by `scale[j]`, its direction kept: the
    same motion on a body of other proportions (the root stays where it is)."""
    moved = positions.copy()
    for joint, parent in enumerate(parents):
        if parent >= 0:
            moved[..., joint, :] = moved[..., parent, :] + scale[joint] * (positions[..., joint, :]
                                                                         - positions[..., parent, :])
    return moved
