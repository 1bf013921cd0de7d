"""Generated furniture assembled from superquadrics, and the coarse primitive controls SpaceControl is given.

Three kinds stand on the floor of [-1, 1]^3 (z up): chairs (a seat, four legs, a back), stools (a round seat,
four legs) and tables (a wide thin top, four legs), with random sizes, roundness and leg thickness. A shape's
control is what a user would sketch in SpaceControl's editor: near-boxes (exponents 0.1) over the seat or top,
over the back, and ONE block over all four legs, each extent jittered by up to 15 %. The leg block is what makes
a control unrealistic: no training shape has one, so the generator has to carve legs out of it, and a faithful
copy keeps it (this is what the generated data favours: realism and faithfulness pull apart on the legs).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import numpy as np

from methods.shape_control.superquadric import Superquadric

Kind = Literal["chair", "stool", "table"]
KINDS: tuple[Kind, ...] = ("chair", "stool", "table")
FLOOR = -0.9
BOX = (0.1, 0.1)  # the control primitives' exponents: near-boxes
JITTER = 0.15
# Separate random streams per seed: flow and classifier training shapes, the test shapes behind the controls,
# the real shapes the realism metrics compare against, a second draw of real shapes (the `real_shapes` method:
# the Fréchet floor at the test set's size), and validation controls (where the baselines' strength grids were
# chosen, never on the test controls).
TRAIN_STREAM, TEST_STREAM, REFERENCE_STREAM, REAL_STREAM, VALIDATION_STREAM = 0, 1, 2, 3, 4


@dataclass(frozen=True)
class Furniture:
    """A shape (its parts) and its control (coarse primitives), named by `id`."""

    id: str
    kind: Kind
    parts: tuple[Superquadric, ...]
    control: tuple[Superquadric, ...]


def furniture_rng(stream: int, seed: int, index: int) -> np.random.Generator:
    return np.random.default_rng([stream, seed, index])


def _legs(rng: np.random.Generator, half_x: float, half_y: float, top: float) -> list[Superquadric]:
    """Four legs from the floor to `top`, inset under a seat of half-extents (half_x, half_y)."""
    radius = rng.uniform(0.07, 0.13)
    half_height = (top - FLOOR) / 2.0
    roundness = rng.uniform(0.2, 1.0)  # cross-section: square-ish to round
    inset = radius * rng.uniform(1.0, 1.5)
    return [Superquadric((radius, radius, half_height), (0.2, roundness),
                         (sx * (half_x - inset), sy * (half_y - inset), FLOOR + half_height))
            for sx in (-1, 1) for sy in (-1, 1)]


def _chair(rng: np.random.Generator) -> tuple[list[Superquadric], list[Superquadric]]:
    half_x, half_y = rng.uniform(0.45, 0.7), rng.uniform(0.45, 0.7)
    seat_z, thick = rng.uniform(-0.25, 0.05), rng.uniform(0.06, 0.1)
    roundness = rng.uniform(0.1, 0.5)
    seat = Superquadric((half_x, half_y, thick), (0.2, roundness), (0.0, 0.0, seat_z))
    back_half_z = (rng.uniform(0.6, 0.9) - seat_z) / 2.0
    back_thick = rng.uniform(0.06, 0.1)
    back = Superquadric((half_x, back_thick, back_half_z), (rng.uniform(0.1, 0.6), roundness),
                        (0.0, -half_y + back_thick, seat_z + back_half_z))
    return [seat, back, *_legs(rng, half_x, half_y, seat_z)], [seat, back]


def _stool(rng: np.random.Generator) -> tuple[list[Superquadric], list[Superquadric]]:
    radius, seat_z = rng.uniform(0.4, 0.6), rng.uniform(-0.1, 0.3)
    seat = Superquadric((radius, radius, rng.uniform(0.07, 0.12)), (0.2, 1.0), (0.0, 0.0, seat_z))
    return [seat, *_legs(rng, radius * 0.8, radius * 0.8, seat_z)], [seat]


def _table(rng: np.random.Generator) -> tuple[list[Superquadric], list[Superquadric]]:
    half_x, half_y = rng.uniform(0.7, 0.95), rng.uniform(0.45, 0.8)
    top_z = rng.uniform(0.1, 0.5)
    top = Superquadric((half_x, half_y, rng.uniform(0.05, 0.09)), (0.2, rng.uniform(0.1, 0.6)), (0.0, 0.0, top_z))
    return [top, *_legs(rng, half_x, half_y, top_z)], [top]


def _coarse(part: Superquadric, rng: np.random.Generator) -> Superquadric:
    """A near-box over `part` with each extent jittered by up to JITTER."""
    scale = tuple(float(s * rng.uniform(1 - JITTER, 1 + JITTER)) for s in part.scale)
    return Superquadric((scale[0], scale[1], scale[2]), BOX, part.center, part.yaw)


def _leg_block(legs: list[Superquadric]) -> Superquadric:
    """One box over the bounding box of the legs."""
    low = np.min([np.subtract(leg.center, leg.scale) for leg in legs], axis=0)
    high = np.max([np.add(leg.center, leg.scale) for leg in legs], axis=0)
    half, centre = (high - low) / 2.0, (high + low) / 2.0
    return Superquadric((float(half[0]), float(half[1]), float(half[2])), BOX,
                        (float(centre[0]), float(centre[1]), float(centre[2])))


def generate(stream: int, seed: int, index: int) -> Furniture:
    """Shape `index` of a seed's stream: the same shape wherever it is generated."""
    rng = furniture_rng(stream, seed, index)
    kind: Kind = KINDS[int(rng.integers(len(KINDS)))]
    parts, sketched = {"chair": _chair, "stool": _stool, "table": _table}[kind](rng)
    legs = parts[len(sketched):]
    control = (*(_coarse(part, rng) for part in sketched), _leg_block(legs))
    return Furniture(f"{kind}-s{seed}-t{stream}-{index:04d}", kind, tuple(parts), control)
