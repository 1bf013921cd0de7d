"""Procedural motions: walk, run, jump, wave and a random dance, as local joint angles and a root path that
forward kinematics turns into joint positions. Each clip draws its own tempo, amplitudes, heading and start.

The angles are Euler (x, y, z) per joint in the parent's frame: x flexes in the sagittal plane (a positive
angle swings a hanging limb backward), y twists, z raises a limb sideways. Joints a skeleton lacks are skipped.
"""
from __future__ import annotations

from collections.abc import Callable

import numpy as np

from methods.motion_tokens.skeleton import Skeleton, forward_kinematics

MOTIONS = ("walk", "run", "jump", "wave", "dance")
FPS = 30.0

Angles = dict[str, np.ndarray]  # joint name -> (frames, 3) local Euler angles


def _zeros(frames: int) -> np.ndarray:
    return np.zeros((frames, 3))


def _locomotion(t: np.ndarray, rng: np.random.Generator, cycle_hz: float, swing: float, knee: float,
                elbow: float, lean: float) -> Angles:
    """A walking or running cycle: legs in antiphase, arms against the legs, knees bending in the swing."""
    phase = 2 * np.pi * cycle_hz * rng.uniform(0.85, 1.15) * t + rng.uniform(0, 2 * np.pi)
    scale = rng.uniform(0.8, 1.2)
    angles: Angles = {}
    for side, sign in (("l", 1.0), ("r", -1.0)):
        hip, knee_angle, shoulder, elbow_angle = (_zeros(t.size) for _ in range(4))
        hip[:, 0] = -sign * scale * swing * np.sin(phase)
        knee_angle[:, 0] = scale * knee * np.maximum(0.0, np.sin(phase + sign * np.pi / 2)) + 0.05
        shoulder[:, 0] = sign * scale * 0.7 * swing * np.sin(phase)
        elbow_angle[:, 0] = -elbow
        angles |= {f"{side}_hip": hip, f"{side}_knee": knee_angle, f"{side}_shoulder": shoulder,
                   f"{side}_elbow": elbow_angle}
    spine = _zeros(t.size)
    spine[:, 0], spine[:, 1] = -lean, 0.1 * scale * np.sin(phase)
    angles["spine"] = spine
    return angles


def walk(t: np.ndarray, rng: np.random.Generator) -> tuple[Angles, float, np.ndarray]:
    return _locomotion(t, rng, 0.95, 0.45, 0.7, 0.2, 0.03), rng.uniform(1.0, 1.6), 0.02 * np.abs(np.sin(2 * np.pi * t))


def run(t: np.ndarray, rng: np.random.Generator) -> tuple[Angles, float, np.ndarray]:
    angles = _locomotion(t, rng, 1.4, 0.8, 1.6, 1.4, 0.25)
    return angles, rng.uniform(2.5, 3.5), 0.06 * np.abs(np.sin(2 * np.pi * 1.4 * t))


def jump(t: np.ndarray, rng: np.random.Generator) -> tuple[Angles, float, np.ndarray]:
    """Jumps in place: a crouch (knees and hips flexed, arms back) then a flight with the arms up."""
    phase = 2 * np.pi * rng.uniform(0.9, 1.3) * t + rng.uniform(0, 2 * np.pi)
    crouch, flight = np.maximum(0.0, -np.sin(phase)), np.maximum(0.0, np.sin(phase))
    depth = rng.uniform(0.6, 1.1)
    angles: Angles = {}
    for side in ("l", "r"):
        hip, knee, shoulder = _zeros(t.size), _zeros(t.size), _zeros(t.size)
        hip[:, 0], knee[:, 0] = -depth * crouch, 2 * depth * crouch
        shoulder[:, 0] = 0.6 * crouch - 2.6 * flight
        angles |= {f"{side}_hip": hip, f"{side}_knee": knee, f"{side}_shoulder": shoulder}
    drop = -0.42 * (1 - np.cos(depth * crouch))
    return angles, 0.0, drop + rng.uniform(0.2, 0.45) * flight ** 2


def wave(t: np.ndarray, rng: np.random.Generator) -> tuple[Angles, float, np.ndarray]:
    """Standing, one arm raised sideways and the forearm waving."""
    phase = 2 * np.pi * rng.uniform(1.2, 2.2) * t + rng.uniform(0, 2 * np.pi)
    side, sign = ("r", -1.0) if rng.random() < 0.5 else ("l", 1.0)
    shoulder, elbow, spine = _zeros(t.size), _zeros(t.size), _zeros(t.size)
    shoulder[:, 2] = sign * rng.uniform(2.3, 2.8)
    elbow[:, 2] = sign * (0.3 + rng.uniform(0.4, 0.7) * np.sin(phase))
    spine[:, 2] = 0.05 * np.sin(phase / 2)
    return {f"{side}_shoulder": shoulder, f"{side}_elbow": elbow, "spine": spine}, 0.0, np.zeros(t.size)


DANCED = ("l_hip", "r_hip", "l_knee", "r_knee", "spine", "neck", "l_shoulder", "r_shoulder", "l_elbow", "r_elbow")


def dance(t: np.ndarray, rng: np.random.Generator) -> tuple[Angles, float, np.ndarray]:
    """Every driven joint a sum of three random sinusoids (0.3-2 Hz); knees only bend."""
    angles: Angles = {}
    for joint in DANCED:
        freq = rng.uniform(0.3, 2.0, (3, 1, 3))
        amp = rng.uniform(0.0, 0.45, (3, 1, 3))
        offset = rng.uniform(0, 2 * np.pi, (3, 1, 3))
        values = (amp * np.sin(2 * np.pi * freq * t[None, :, None] + offset)).sum(axis=0)
        if joint.endswith("knee"):
            values = np.abs(values) * [1.0, 0.0, 0.0]
        angles[joint] = values
    return angles, rng.uniform(0.0, 0.4), 0.05 * np.sin(2 * np.pi * rng.uniform(0.5, 1.5) * t)


GENERATORS: dict[str, Callable[[np.ndarray, np.random.Generator], tuple[Angles, float, np.ndarray]]] = {
    "walk": walk, "run": run, "jump": jump, "wave": wave, "dance": dance}
ALIASES = {"spine": ("spine", "spine1")}  # SMPL names its lowest spine joint spine1


def motion_clip(skeleton: Skeleton, motion: str, frames: int, rng: np.random.Generator,
                bone_scale: np.ndarray | None = None) -> np.ndarray:
    """One clip (frames, joints, 3) in metres: the motion's angles, a random heading and start, forward kinematics."""
    t = np.arange(frames) / FPS
    angles, speed, height = GENERATORS[motion](t, rng)
    local = np.zeros((frames, skeleton.num_joints, 3))
    for joint, values in angles.items():
        names = [name for name in ALIASES.get(joint, (joint,)) if name in skeleton.joints]
        index = skeleton.index(names[0]) if names else None
        if index is not None:
            local[:, index] = values
    heading = rng.uniform(0, 2 * np.pi)
    local[:, 0, 1] = heading
    forward = np.array([np.sin(heading), 0.0, np.cos(heading)])
    root = skeleton.offsets[0] + rng.uniform(-1, 1, 3) * [1, 0, 1] + speed * t[:, None] * forward
    root[:, 1] += height
    return forward_kinematics(skeleton, local, root, bone_scale)
