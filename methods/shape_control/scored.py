"""A run's predictions table turned into the per-shape figures the metrics average.

Predictions table, one row per control: `shape` (the control's id), `occupancy` (the generated shape's voxels:
base64 of numpy.packbits of the bool grid in C order; empty when only points are known) and `points` (base64 of
float32 (N, 3) surface points; empty when they are to be sampled from the occupancy, seeded by the id).
"""
from __future__ import annotations

import base64
from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np
import pandas as pd

COLUMNS = ("shape", "occupancy", "points")


@dataclass(frozen=True)
class ScoredShapes:
    """(N,) per-shape figures (NaN where a shape has no occupancy) and the set's Fréchet distance."""

    chamfer: np.ndarray
    fscore: np.ndarray
    iou: np.ndarray
    nn_distance: np.ndarray
    frechet: float


def encode_grid(grid: np.ndarray) -> str:
    return base64.b64encode(np.packbits(grid.astype(bool).ravel()).tobytes()).decode("ascii")


def decode_grid(text: str, resolution: int) -> np.ndarray:
    bits = np.unpackbits(np.frombuffer(base64.b64decode(text), dtype=np.uint8), count=resolution ** 3)
    return bits.astype(bool).reshape(resolution, resolution, resolution)


def encode_points(points: np.ndarray) -> str:
    return base64.b64encode(np.ascontiguousarray(points, dtype=np.float32).tobytes()).decode("ascii")


def decode_points(text: str) -> np.ndarray:
    return np.frombuffer(base64.b64decode(text), dtype=np.float32).reshape(-1, 3).astype(np.float64)


def prediction_rows(predictions: pd.DataFrame, shapes: Mapping[str, object]) -> pd.DataFrame:
    """`predictions` checked (columns, known ids, one row each, every shape present) and in `shapes`' order."""
    missing = [column for column in COLUMNS if column not in predictions.columns]
    if missing:
        raise ValueError(f"the predictions table lacks column(s) {', '.join(missing)} (it needs {', '.join(COLUMNS)})")
    unknown = set(predictions["shape"]) - set(shapes)
    if unknown:
        raise ValueError(f"{len(unknown)} shape(s) not in this set, e.g. '{sorted(unknown)[0]}'")
    if predictions["shape"].duplicated().any():
        raise ValueError(f"shape '{predictions[predictions['shape'].duplicated()].iloc[0]['shape']}' appears twice")
    absent = [name for name in shapes if name not in set(predictions["shape"])]
    if absent:
        raise ValueError(f"{len(absent)} shape(s) have no prediction, e.g. '{absent[0]}'")
    return predictions.set_index("shape").loc[list(shapes)].reset_index()
