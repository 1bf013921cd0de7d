"""Shape metrics: pure functions of point clouds, occupancy grids and feature sets, and the family's `Metric`s
over a run's `ScoredShapes`.

Faithfulness, to the control and to the true shape it was derived from (generated data): Chamfer-L2 (the sum
of the two directed means of squared nearest-neighbour distances; some papers halve it), F-score at `DELTA`
(Tatarchenko et al., 2019: the harmonic mean of the share of generated points within DELTA of the target and of
target points within DELTA of the generated shape), and voxel IoU. Realism: the Fréchet distance between
Gaussians fitted to the shape classifier's features of the generated shapes and of real ones (FID's formula, as
pytorch-fid computes it), and the voxel Jaccard distance (1 - IoU) from each generated shape to its nearest
training shape. Nearest neighbours come from
scipy.spatial.cKDTree.
"""
from __future__ import annotations

import warnings
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial

import numpy as np
from scipy import linalg
from scipy.spatial import cKDTree

from harness import Metric

DELTA = 0.1  # in the units of [-1, 1]^3: under one voxel (0.125) at 16^3


@dataclass(frozen=True)
class Faithfulness:
    """(N,) per-shape Chamfer-L2, F-score and voxel IoU against one target per shape (NaN where unmeasured: IoU
    without voxels, any of them without a target)."""

    chamfer: np.ndarray
    fscore: np.ndarray
    iou: np.ndarray

    @classmethod
    def unmeasured(cls, count: int) -> "Faithfulness":
        return cls(np.full(count, np.nan), np.full(count, np.nan), np.full(count, np.nan))

    def measure(self, i: int, points: np.ndarray, grid: np.ndarray | None, target_points: np.ndarray,
                target_grid: np.ndarray) -> None:
        """Shape i's three figures against a target's surface points and voxels (IoU only when it has voxels)."""
        self.chamfer[i] = chamfer_l2(points, target_points)
        self.fscore[i] = fscore(points, target_points)
        if grid is not None:
            self.iou[i] = voxel_iou(grid, target_grid)


@dataclass(frozen=True)
class ScoredShapes:
    """Per-shape faithfulness to the control and to the true shape, (N,) nearest-training distances (NaN where a
    shape has no occupancy) and the set's Fréchet distance."""

    control: Faithfulness
    true: Faithfulness
    nn_distance: np.ndarray
    frechet: float


def nearest_distances(source: np.ndarray, target: np.ndarray) -> np.ndarray:
    """Euclidean distance from each point of `source` (N, 3) to its nearest point of `target` (M, 3)."""
    distances, _ = cKDTree(target).query(source, k=1)
    return np.asarray(distances, dtype=np.float64)


def chamfer_l2(a: np.ndarray, b: np.ndarray) -> float:
    """mean_a min_b |a - b|^2 + mean_b min_a |a - b|^2: symmetric, 0 for identical clouds."""
    return float(np.mean(nearest_distances(a, b) ** 2) + np.mean(nearest_distances(b, a) ** 2))


def fscore(generated: np.ndarray, reference: np.ndarray, delta: float = DELTA) -> float:
    """F-score at `delta`: 2 P R / (P + R) with P the share of generated points within delta of the reference
    and R the share of reference points within delta of the generated ones (0 when both are 0)."""
    precision = float(np.mean(nearest_distances(generated, reference) <= delta))
    recall = float(np.mean(nearest_distances(reference, generated) <= delta))
    return 0.0 if precision + recall == 0 else 2 * precision * recall / (precision + recall)


def voxel_iou(a: np.ndarray, b: np.ndarray) -> float:
    """|a & b| / |a | b| of two bool grids; 1 when both are empty (they agree everywhere)."""
    union = np.logical_or(a, b).sum()
    return 1.0 if union == 0 else float(np.logical_and(a, b).sum() / union)


def nearest_jaccard_distance(grids: np.ndarray, training: np.ndarray) -> np.ndarray:
    """(N,) 1 - max_j IoU(grids[i], training[j]): 0 for a copy of a training shape."""
    a = grids.reshape(len(grids), -1).astype(np.float32)
    b = training.reshape(len(training), -1).astype(np.float32)
    inter = a @ b.T
    union = a.sum(axis=1)[:, None] + b.sum(axis=1)[None, :] - inter
    iou = np.where(union > 0, inter / np.maximum(union, 1.0), 1.0)
    return 1.0 - iou.max(axis=1).astype(np.float64)


def frechet_distance(a: np.ndarray, b: np.ndarray) -> float:
    """|mu_a - mu_b|^2 + tr(S_a + S_b - 2 (S_a S_b)^(1/2)) of Gaussians fitted to feature rows `a` and `b`
    (pytorch-fid's formula: a tiny ridge when the product's square root is not finite, its real part)."""
    mu_a, mu_b = a.mean(axis=0), b.mean(axis=0)
    cov_a, cov_b = np.atleast_2d(np.cov(a, rowvar=False)), np.atleast_2d(np.cov(b, rowvar=False))
    with warnings.catch_warnings():  # a set smaller than the feature width has a singular covariance: expected
        warnings.simplefilter("ignore", linalg.LinAlgWarning)
        root = linalg.sqrtm(cov_a @ cov_b)
    if not np.isfinite(root).all():
        ridge = np.eye(len(cov_a)) * 1e-6
        root = linalg.sqrtm((cov_a + ridge) @ (cov_b + ridge))
    return float(np.sum((mu_a - mu_b) ** 2) + np.trace(cov_a) + np.trace(cov_b) - 2 * np.trace(np.real(root)))


def _mean(values: np.ndarray) -> float:
    """The mean over shapes that have the figure (NaN when none has it: e.g. voxel IoU of point clouds)."""
    return float("nan") if np.isnan(values).all() else float(np.nanmean(values))


def mean_faithfulness(target: str, figure: str, run: ScoredShapes) -> float:
    """The mean of one faithfulness figure ('chamfer', 'fscore', 'iou') against `target` ('control', 'true')."""
    return _mean(getattr(getattr(run, target), figure))


def _faithfulness(target: str, figure: str) -> Callable[[ScoredShapes], float]:
    return partial(mean_faithfulness, target, figure)  # a partial of a module function pickles


def set_frechet(run: ScoredShapes) -> float:
    return run.frechet


def mean_nn_distance(run: ScoredShapes) -> float:
    return _mean(run.nn_distance)


TRUE_NOTE = "the generated shape the control was derived from; NaN for your own controls"
CHAMFER_L2 = Metric("chamfer_l2", _faithfulness("control", "chamfer"), higher_is_better=False,
                    description="mean Chamfer-L2 to the control's surface (faithfulness to the control)")
FSCORE = Metric("fscore", _faithfulness("control", "fscore"), higher_is_better=True,
                description=f"mean F-score at {DELTA} to the control's surface (faithfulness to the control)")
IOU = Metric("iou", _faithfulness("control", "iou"), higher_is_better=True,
             description="mean voxel IoU with the control (faithfulness to the control)")
CHAMFER_TRUE = Metric("chamfer_true", _faithfulness("true", "chamfer"), higher_is_better=False,
                      description=f"mean Chamfer-L2 to the true shape's surface ({TRUE_NOTE})")
FSCORE_TRUE = Metric("fscore_true", _faithfulness("true", "fscore"), higher_is_better=True,
                     description=f"mean F-score at {DELTA} to the true shape's surface ({TRUE_NOTE})")
IOU_TRUE = Metric("iou_true", _faithfulness("true", "iou"), higher_is_better=True,
                  description=f"mean voxel IoU with the true shape ({TRUE_NOTE})")
FRECHET = Metric("frechet", set_frechet, higher_is_better=False,
                 description="Fréchet distance of shape-classifier features to real shapes (realism)")
NN_DISTANCE = Metric("nn_distance", mean_nn_distance, higher_is_better=False,
                     description="mean voxel Jaccard distance to the nearest training shape (realism)")
