"""Generated dynamic scenes with known motion: textured Gaussian blobs under rigid or articulated motion, a
static occluding pillar between them and the training cameras, a narrow arc of training cameras (one per frame:
the monocular setting) and held-out extreme views (the side and the back) of every frame.

Rigid: two ellipsoidal blobs, each translating (in depth too) and turning about its own vertical axis.
Articulated: a three-segment arm whose joints swing about axes tilted out of the image plane, so part of the
motion is along the training cameras' depth axis, where a narrow arc sees little. Each blob's colour is a base
colour modulated by stripes along its own axes (texture the photometric loss can lock onto).
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Literal

import numpy as np

SceneKind = Literal["rigid", "articulated"]
KINDS: tuple[SceneKind, ...] = ("rigid", "articulated")
EXTENT = 2.8  # world units across every image
BACKGROUND, STATIC = -2, -1  # a pixel's region label beside the object segments 0, 1, ... (views.region_labels)


@dataclass(frozen=True)
class SceneSpec:
    """A scene family: what each seed generates a new instance of."""

    kind: SceneKind
    frames: int = 8
    image_size: int = 48
    gaussians_per_blob: int = 60
    arc_degrees: float = 20.0
    extreme_azimuths: tuple[float, ...] = (90.0, 180.0)
    elevation: float = 15.0


@dataclass(frozen=True)
class DynamicScene:
    """Ground truth of one generated scene: trajectories (T, N, 3) and each Gaussian's appearance."""

    spec: SceneSpec
    positions: np.ndarray  # (T, N, 3)
    colours: np.ndarray    # (N, 3)
    scales: np.ndarray     # (N,) world-space standard deviation
    opacities: np.ndarray  # (N,)
    objects: np.ndarray    # (N,) int: the blob (rigid part) each Gaussian belongs to; -1 for the static pillar

    @property
    def moving(self) -> np.ndarray:
        return self.objects >= 0


def _rotation(axis: np.ndarray, angle: float) -> np.ndarray:
    """Rodrigues' rotation matrix about the unit `axis`."""
    k = np.array([[0, -axis[2], axis[1]], [axis[2], 0, -axis[0]], [-axis[1], axis[0], 0]])
    return np.eye(3) + math.sin(angle) * k + (1 - math.cos(angle)) * k @ k


def _blob(rng: np.random.Generator, count: int, radii: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Points filling an ellipsoid (local frame) and their striped colours."""
    direction = rng.normal(size=(count, 3))
    direction /= np.linalg.norm(direction, axis=1, keepdims=True)
    points = direction * rng.random((count, 1)) ** (1 / 3) * radii
    base = rng.uniform(0.25, 0.95, size=3)
    frequency = rng.uniform(6.0, 12.0, size=3)
    stripes = 0.55 + 0.45 * np.sign(np.sin(points @ frequency))[:, None]
    return points, np.clip(base[None, :] * stripes, 0.0, 1.0)


def _rigid(rng: np.random.Generator, spec: SceneSpec) -> tuple[list[np.ndarray], list[np.ndarray]]:
    """Two blobs crossing behind the pillar in opposite directions, each turning about its vertical axis."""
    times = np.linspace(0.0, 1.0, spec.frames)
    tracks, colours = [], []
    for side in (-1.0, 1.0):
        local, colour = _blob(rng, spec.gaussians_per_blob, rng.uniform([0.22, 0.16, 0.16], [0.3, 0.24, 0.24]))
        start = np.array([side * 0.75, rng.uniform(-0.35, 0.35), rng.uniform(-0.3, 0.0)])
        velocity = np.array([-side * rng.uniform(1.1, 1.5), rng.uniform(-0.2, 0.2), rng.uniform(-0.4, 0.4)])
        spin = rng.uniform(0.6, 1.2) * rng.choice([-1.0, 1.0])
        axis = np.array([rng.uniform(-0.2, 0.2), 1.0, 0.0])
        axis /= np.linalg.norm(axis)
        tracks.append(np.stack([start + velocity * t + local @ _rotation(axis, spin * t).T for t in times]))
        colours.append(colour)
    return tracks, colours


def _articulated(rng: np.random.Generator, spec: SceneSpec) -> tuple[list[np.ndarray], list[np.ndarray]]:
    """A three-segment arm from a base beside the pillar; joint k swings by A_k sin(2 pi t + p_k)."""
    times = np.linspace(0.0, 1.0, spec.frames)
    lengths = rng.uniform(0.45, 0.6, size=3)
    amplitude = rng.uniform(0.5, 0.9, size=3)
    phase = rng.uniform(0, 2 * math.pi, size=3)
    axes = [np.array([rng.uniform(-0.6, 0.6), rng.uniform(-0.3, 0.3), 1.0]) for _ in range(3)]
    axes = [a / np.linalg.norm(a) for a in axes]
    base = np.array([-0.9, rng.uniform(-0.5, -0.2), rng.uniform(-0.3, 0.0)])
    segments = [_blob(rng, spec.gaussians_per_blob, np.array([length / 2, 0.12, 0.12])) for length in lengths]
    tracks: list[list[np.ndarray]] = [[] for _ in segments]
    for t in times:
        joint, frame = base.copy(), np.eye(3)
        for k, ((local, _), length) in enumerate(zip(segments, lengths, strict=True)):
            frame = frame @ _rotation(axes[k], amplitude[k] * math.sin(2 * math.pi * t + phase[k]) + 0.3 * (k == 0))
            along = frame @ np.array([length, 0.0, 0.0])
            tracks[k].append(joint + along / 2 + (local @ frame.T))
            joint = joint + along
    return [np.stack(track) for track in tracks], [colour for _, colour in segments]


def _pillar(rng: np.random.Generator, count: int) -> tuple[np.ndarray, np.ndarray]:
    """A static grey-striped pillar in front of the objects (towards the training cameras, which sit at +z)."""
    points = np.column_stack([rng.uniform(-0.18, 0.18, count), rng.uniform(-1.2, 1.2, count),
                              rng.uniform(0.65, 0.8, count)])
    shade = 0.35 + 0.25 * (np.sin(points[:, 1] * 9.0) > 0)
    return points, np.column_stack([shade, shade, shade + 0.1])


def generate(spec: SceneSpec, seed: int) -> DynamicScene:
    """The scene of `seed`: new blob shapes, colours, motion and pillar texture per seed."""
    rng = np.random.default_rng([seed, KINDS.index(spec.kind)])
    tracks, colours = (_rigid if spec.kind == "rigid" else _articulated)(rng, spec)
    pillar, pillar_colour = _pillar(rng, spec.gaussians_per_blob // 2)
    moving = np.concatenate(tracks, axis=1)
    positions = np.concatenate([moving, np.broadcast_to(pillar, (spec.frames, *pillar.shape))], axis=1)
    count = positions.shape[1]
    objects = np.concatenate([np.full(track.shape[1], k) for k, track in enumerate(tracks)]
                             + [np.full(len(pillar), -1)])
    return DynamicScene(spec, positions.astype(np.float64), np.concatenate([*colours, pillar_colour]),
                        np.asarray(rng.uniform(0.035, 0.06, count)), np.asarray(rng.uniform(0.6, 0.95, count)),
                        objects)
