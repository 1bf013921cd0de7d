"""The contract `shape_control.controlled_generation`: generate a shape for each coarse control (SpaceControl's
test-time spatial control, arXiv 2512.05343, in miniature).

A method sees the seed's controls (their superquadrics and voxels), the seed's trained flow generator and the
training shapes; it returns one generated shape per control, as voxels and/or surface points. The predictions
table (`predictions_schema`) holds them encoded, so stored runs and users' shapes are re-scored by the same code:
faithfulness to the control (Chamfer-L2, F-score, voxel IoU) and to the true shape the control was derived from
(the same three, `*_true`; NaN for your own controls, which have none), and realism (Fréchet distance of
classifier features to the seed's real shapes, Jaccard distance to the nearest training shape).
"""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from harness import Instance, Metric, Task
from harness.contracts import reject_split_keys
from harness.predictions_schema import Column, PredictionsSchema
from methods.shape_control.data import Control, ShapeSource, load_classifier
from methods.shape_control.furniture import TEST_STREAM, generate
from methods.shape_control.scoring import ShapeTruth, encode_grid, encode_points, scored_shapes
from methods.shape_control.superquadric import occupancy
from methods.shape_control.surface import surface_points


@dataclass(frozen=True)
class GeneratedShape:
    """A method's shape for one control: voxels at the dataset's resolution, and/or surface points."""

    grid: np.ndarray | None = None
    points: np.ndarray | None = None


Generated = dict[str, GeneratedShape]  # control id -> its generated shape


@dataclass(frozen=True)
class ControlInputs:
    """The seed's controls, the seed's trained flow, and the source (its models, training shapes and any recorded
    shapes)."""

    source: ShapeSource
    seed: int
    controls: tuple[Control, ...]
    flow_dir: Path

    def control_grids(self) -> np.ndarray:
        return np.stack([control.grid for control in self.controls])


class ControlledGeneration(Task):
    """Generated furniture controls (each seed a new set) or a user's controls (`byo`)."""

    # One row per control; a shape gives its voxels, its points or both (`scoring` reads the encodings).
    predictions_schema = PredictionsSchema(
        (Column("shape", "text", description="the control's id"),
         Column("occupancy", "text", may_be_empty=True,
                description="base64 of numpy.packbits of the bool voxel grid (C order); empty: points only"),
         Column("points", "text", may_be_empty=True,
                description="base64 of float32 (N, 3) surface points; empty: sampled from the occupancy")),
        sample="shape")

    def test_samples(self, instance: Instance) -> list[str]:
        return list(instance.truth.controls)

    def check_split(self, split: Mapping[str, Any]) -> None:
        reject_split_keys(split, "shape_control.controlled_generation", "the set's size is the loader's count")

    def instance(self, data: ShapeSource, split: Mapping[str, Any], seed: int) -> Instance:
        controls = data.test_controls(seed)
        model = load_classifier(data.models.classifier_dir)
        from methods.shape_control.classifier import shape_features

        truth = ShapeTruth(
            controls={c.id: c for c in controls},
            points={c.id: surface_points(c.grid, c.id) for c in controls},
            true_points={c.id: surface_points(c.truth, c.id) for c in controls if c.truth is not None},
            classifier=model, reference_features=shape_features(model, data.reference_grids(seed)),
            training=data.models.training_grids())
        return Instance(inputs=ControlInputs(data, seed, controls, data.models.flow_dir(seed)), truth=truth)

    def tiny_instance(self, seed: int) -> Instance:
        """Six controls, 48 reference shapes, a flow and a classifier trained on 300 shapes in seconds; the real
        shapes behind the controls recorded for the `recorded` method."""
        from methods.shape_control.byo import RecordedShape
        from methods.shape_control.data import generated

        tiny_flow = {"train_shapes": 300, "steps": 200, "hidden": 128, "latent_dim": 32}
        tiny_classifier = {"train_shapes": 300, "epochs": 1}
        source = generated(6, 48, {"config": tiny_flow}, {"config": tiny_classifier})
        real = {shape.id: occupancy(shape.parts, source.models.resolution)
                for shape in (generate(TEST_STREAM, seed, index) for index in range(source.count))}
        recorded = {name: RecordedShape(surface_points(grid, name), grid) for name, grid in real.items()}
        return self.instance(replace(source, recorded=recorded), {}, seed)

    def predictions(self, instance: Instance, output: Any) -> pd.DataFrame:
        if not isinstance(output, dict):
            raise ValueError(f"a shape method returns {{control id: GeneratedShape}}, got {type(output).__name__}")
        rows = [(name, "" if shape.grid is None else encode_grid(shape.grid),
                 "" if shape.points is None else encode_points(shape.points)) for name, shape in output.items()]
        return pd.DataFrame(rows, columns=["shape", "occupancy", "points"])

    def score(self, instance: Instance, predictions: pd.DataFrame, metrics: Mapping[str, Metric]) -> dict[str, float]:
        scored = scored_shapes(instance.truth, predictions)
        return {key: metric(scored) for key, metric in metrics.items()}
