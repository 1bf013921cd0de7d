"""A run's generated shapes scored against their controls and the real shapes: `ScoredShapes` from the
predictions table (`ControlledGeneration.predictions_schema`) and the instance's truth.

The table's `occupancy` is base64 of numpy.packbits of the bool grid in C order (empty when only points are
known); its `points` base64 of float32 (N, 3) surface points (empty when they are to be sampled from the
occupancy, seeded by the shape's id).
"""
from __future__ import annotations

import base64
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from methods.shape_control.classifier import shape_features
from methods.shape_control.data import Control
from methods.shape_control.metrics import Faithfulness, ScoredShapes, frechet_distance, nearest_jaccard_distance
from methods.shape_control.surface import surface_points


@dataclass(frozen=True)
class ShapeTruth:
    """The controls (voxels and surface points), the true shapes' surface points (generated data only), the
    classifier and the real shapes' features, the training shapes."""

    controls: Mapping[str, Control]
    points: Mapping[str, np.ndarray]
    true_points: Mapping[str, np.ndarray]
    classifier: Any
    reference_features: np.ndarray
    training: np.ndarray


def encode_grid(grid: np.ndarray) -> str:
    return base64.b64encode(np.packbits(grid.astype(bool).ravel()).tobytes()).decode("ascii")


def decode_grid(text: str, resolution: int) -> np.ndarray:
    bits = np.unpackbits(np.frombuffer(base64.b64decode(text), dtype=np.uint8), count=resolution ** 3)
    return bits.astype(bool).reshape(resolution, resolution, resolution)


def encode_points(points: np.ndarray) -> str:
    return base64.b64encode(np.ascontiguousarray(points, dtype=np.float32).tobytes()).decode("ascii")


def decode_points(text: str) -> np.ndarray:
    return np.frombuffer(base64.b64decode(text), dtype=np.float32).reshape(-1, 3).astype(np.float64)


def scored_shapes(truth: ShapeTruth, predictions: pd.DataFrame) -> ScoredShapes:
    """Per-shape faithfulness (to the control, and to the true shape where there is one) and nearest-training
    distance; the Fréchet distance over the shapes with voxels
    (NaN with fewer than two). `predictions` is checked (one row per control); an empty cell (a CSV's empty
    field reads as NaN) means "not given". A `ValueError` names a shape with neither voxels nor points."""
    rows = predictions.set_index("shape").loc[list(truth.controls)].reset_index()
    resolution = truth.training.shape[1]
    count = len(rows)
    control = Faithfulness.unmeasured(count)
    true = Faithfulness.unmeasured(count)
    grids: list[np.ndarray] = []
    with_grid = np.zeros(count, dtype=bool)
    for i, (name, occupancy, points_text) in enumerate(zip(rows["shape"], rows["occupancy"], rows["points"],
                                                           strict=True)):
        grid = decode_grid(occupancy, resolution) if _given(occupancy) else None
        if _given(points_text):
            points = decode_points(points_text)
        elif grid is not None:
            points = surface_points(grid, name)
        else:
            raise ValueError(f"shape '{name}' has neither occupancy nor points")
        control.measure(i, points, grid, truth.points[name], truth.controls[name].grid)
        true_grid = truth.controls[name].truth
        if true_grid is not None:
            true.measure(i, points, grid, truth.true_points[name], true_grid)
        if grid is not None:
            grids.append(grid)
            with_grid[i] = True
    nn_distance = np.full(count, np.nan)
    frechet = float("nan")
    if grids:
        stacked = np.stack(grids)
        nn_distance[with_grid] = nearest_jaccard_distance(stacked, truth.training)
        if len(grids) >= 2:
            frechet = frechet_distance(shape_features(truth.classifier, stacked), truth.reference_features)
    return ScoredShapes(control, true, nn_distance, frechet)


def _given(cell: object) -> bool:
    return isinstance(cell, str) and cell != ""
