"""Superquadrics, SpaceControl's control primitive: the inside-outside function, exact occupancy on a voxel
grid, the analytic volume and a surface mesh.

    F(x, y, z) = (|x/a1|^(2/e2) + |y/a2|^(2/e2))^(e2/e1) + |z/a3|^(2/e1)        (F < 1 inside, F = 1 on the surface)

in the primitive's frame (centred, turned by `yaw` about z); e1 shapes the profile along z, e2 the cross-section
(e1 = e2 = 1: an ellipsoid, both near 0: a box, e2 = 1 with e1 near 0: a cylinder). Shapes live in the cube
[-1, 1]^3 with z up; a voxel is occupied when its centre is inside some part.
"""
from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from scipy.special import beta

Vector = tuple[float, float, float]


@dataclass(frozen=True)
class Superquadric:
    """One primitive: half-extents `scale` (a1, a2, a3), `exponents` (e1, e2), `center` and `yaw` (radians)."""

    scale: Vector
    exponents: tuple[float, float]
    center: Vector = (0.0, 0.0, 0.0)
    yaw: float = 0.0

    def local(self, points: np.ndarray) -> np.ndarray:
        """(N, 3) world points in the primitive's frame."""
        shifted = np.asarray(points, dtype=np.float64) - np.asarray(self.center)
        cos, sin = math.cos(self.yaw), math.sin(self.yaw)
        x = cos * shifted[:, 0] + sin * shifted[:, 1]
        y = -sin * shifted[:, 0] + cos * shifted[:, 1]
        return np.stack([x, y, shifted[:, 2]], axis=1)


def inside_outside(primitive: Superquadric, points: np.ndarray) -> np.ndarray:
    """F at each of the (N, 3) points: below 1 inside, 1 on the surface, above 1 outside."""
    local = np.abs(primitive.local(points)) / np.asarray(primitive.scale)
    e1, e2 = primitive.exponents
    with np.errstate(over="ignore"):  # far outside a sharp primitive the powers overflow to inf: still outside
        cross = local[:, 0] ** (2.0 / e2) + local[:, 1] ** (2.0 / e2)
        return cross ** (e2 / e1) + local[:, 2] ** (2.0 / e1)


def volume(primitive: Superquadric) -> float:
    """V = 2 a1 a2 a3 e1 e2 B(e1/2 + 1, e1) B(e2/2, e2/2) (Jaklič, Leonardis and Solina, "Segmentation and
    Recovery of Superquadrics", 2000, Eq. 2.60)."""
    a1, a2, a3 = primitive.scale
    e1, e2 = primitive.exponents
    return float(2.0 * a1 * a2 * a3 * e1 * e2 * beta(e1 / 2.0 + 1.0, e1) * beta(e2 / 2.0, e2 / 2.0))


def voxel_centres(resolution: int) -> np.ndarray:
    """(R^3, 3) centres of the voxels of [-1, 1]^3, in C order over (x, y, z)."""
    axis = (np.arange(resolution) + 0.5) * (2.0 / resolution) - 1.0
    return np.stack(np.meshgrid(axis, axis, axis, indexing="ij"), axis=-1).reshape(-1, 3)


def occupancy(parts: Sequence[Superquadric], resolution: int) -> np.ndarray:
    """(R, R, R) bool: the voxels whose centre lies inside some part (the union)."""
    centres = voxel_centres(resolution)
    inside = np.zeros(len(centres), dtype=bool)
    for part in parts:
        inside |= inside_outside(part, centres) < 1.0
    return inside.reshape(resolution, resolution, resolution)
