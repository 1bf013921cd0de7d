"""A run's generated shapes scored against their controls and the real shapes: `ScoredShapes` from the
predictions table and the instance's truth."""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from methods.shape_control.classifier import shape_features
from methods.shape_control.data import Control
from methods.shape_control.metrics import chamfer_l2, frechet_distance, fscore, nearest_jaccard_distance, voxel_iou
from methods.shape_control.scored import ScoredShapes, decode_grid, decode_points, prediction_rows
from methods.shape_control.surface import surface_points


@dataclass(frozen=True)
class ShapeTruth:
    """The controls (voxels and surface points), the classifier and the real shapes' features, the training
    shapes."""

    controls: Mapping[str, Control]
    points: Mapping[str, np.ndarray]
    classifier: Any
    reference_features: np.ndarray
    training: np.ndarray


def scored_shapes(truth: ShapeTruth, predictions: pd.DataFrame) -> ScoredShapes:
    """Per-shape faithfulness and nearest-training distance; the Fréchet distance over the shapes with voxels
    (NaN with fewer than two). A `ValueError` names a shape with neither voxels nor points."""
    rows = prediction_rows(predictions, truth.controls)
    resolution = truth.training.shape[1]
    count = len(rows)
    chamfer, score, iou = np.full(count, np.nan), np.full(count, np.nan), np.full(count, np.nan)
    grids: list[np.ndarray] = []
    with_grid = np.zeros(count, dtype=bool)
    for i, (name, occupancy, points_text) in enumerate(zip(rows["shape"], rows["occupancy"], rows["points"],
                                                           strict=True)):
        grid = decode_grid(occupancy, resolution) if occupancy else None
        if points_text:
            points = decode_points(points_text)
        elif grid is not None:
            points = surface_points(grid, name)
        else:
            raise ValueError(f"shape '{name}' has neither occupancy nor points")
        chamfer[i] = chamfer_l2(points, truth.points[name])
        score[i] = fscore(points, truth.points[name])
        if grid is not None:
            iou[i] = voxel_iou(grid, truth.controls[name].grid)
            grids.append(grid)
            with_grid[i] = True
    nn_distance = np.full(count, np.nan)
    frechet = float("nan")
    if grids:
        stacked = np.stack(grids)
        nn_distance[with_grid] = nearest_jaccard_distance(stacked, truth.training)
        if len(grids) >= 2:
            frechet = frechet_distance(shape_features(truth.classifier, stacked), truth.reference_features)
    return ScoredShapes(chamfer, score, iou, nn_distance, frechet)
