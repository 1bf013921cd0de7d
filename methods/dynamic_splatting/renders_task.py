"""The contract `dynamic_splatting.renders`: your own renders of test views (a `byo` folder) scored with the
family's view metrics, DyCheck's masked PSNR / SSIM among them. The `recorded` method hands over one run's
renders; the predictions table has one row per pixel (`view`, `y`, `x`, `r`, `g`, `b`), so stored runs re-score
from it alone (fine at the sizes of test views; a 360 x 480 view is 173k rows)."""
from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd

from harness import DataError, Instance, Method, Metric, RunContext, Task
from harness.contracts import reject_split_keys
from harness.predictions_schema import Column, PredictionsSchema
from methods.dynamic_splatting.byo import RenderSet
from methods.dynamic_splatting.params import RecordedParams
from methods.dynamic_splatting.scored import ScoredMotion, ViewPair
from methods.dynamic_splatting.scenes import BACKGROUND


class RenderScoring(Task):
    # A view is the sample and each of its pixels a row: the engine checks that every image row `y` has every view,
    # numbered pixels `x` once each; `score` checks that the rows and pixels fill the views.
    predictions_schema = PredictionsSchema(
        (Column("view", "integer", description="the view's place among rgb/'s names, sorted"),
         Column("y", "integer"), Column("x", "integer"),
         *(Column(channel, "number", description="in [0, 1]") for channel in "rgb")),
        sample="view", per=("y",), repeat="x")

    def test_samples(self, instance: Instance) -> range:
        return range(len(instance.truth.names))

    def check_split(self, split: Mapping[str, Any]) -> None:
        reject_split_keys(split, "dynamic_splatting.renders")

    def instance(self, data: RenderSet, split: Mapping[str, Any], seed: int) -> Instance:
        return Instance(inputs=data, truth=data)

    def tiny_instance(self, seed: int) -> Instance:
        """Three random 16 x 16 views, a half mask, and a run 'default' that is the views plus noise."""
        from pathlib import Path

        rng = np.random.default_rng(seed)
        targets = rng.random((3, 16, 16, 3))
        masks = np.zeros((3, 16, 16), dtype=bool)
        masks[:, :, :8] = True
        noisy = np.clip(targets + rng.normal(0, 0.05, targets.shape), 0, 1)
        data = RenderSet(Path("tiny"), ("a", "b", "c"), targets, masks, {"default": noisy})
        return self.instance(data, {}, seed)

    def predictions(self, instance: Instance, output: Any) -> pd.DataFrame:
        truth: RenderSet = instance.truth
        images = np.asarray(output, dtype=np.float64)
        if images.shape != truth.targets.shape:
            raise ValueError(f"renders must be shaped like the views {truth.targets.shape}, got {images.shape}")
        views, height, width, _ = images.shape
        v, y, x = np.meshgrid(np.arange(views), np.arange(height), np.arange(width), indexing="ij")
        return pd.DataFrame({"view": v.ravel(), "y": y.ravel(), "x": x.ravel(), "r": images[..., 0].ravel(),
                             "g": images[..., 1].ravel(), "b": images[..., 2].ravel()})

    def score(self, instance: Instance, predictions: pd.DataFrame, metrics: Mapping[str, Metric]) -> dict[str, float]:
        truth: RenderSet = instance.truth
        _check_pixels(predictions, truth.targets.shape)
        ordered = predictions.sort_values(["view", "y", "x"])
        rendered = ordered[["r", "g", "b"]].to_numpy(np.float64).reshape(truth.targets.shape)
        # a folder of renders has no regions or trajectories: every pixel is background, no Gaussian is scored
        unlabelled = ViewPair(rendered, truth.targets, truth.masks, np.full(truth.masks.shape, BACKGROUND),
                              np.zeros(truth.masks.shape, dtype=bool))
        scored = ScoredMotion((unlabelled,), np.zeros((0, 0)), np.zeros(0, dtype=bool), np.zeros((0, 0), dtype=bool),
                              np.zeros(0), np.zeros(0), np.zeros((0, 0)))
        return {key: metric(scored) for key, metric in metrics.items()}


def _check_pixels(predictions: pd.DataFrame, shape: tuple[int, ...]) -> None:
    """Each (view, y, x) once and each view known (the engine's check), every y and x inside the image and as many
    rows as pixels: then every pixel of every view has its row."""
    views, height, width, _ = shape
    for column, size in (("y", height), ("x", width)):
        outside = predictions[column][~predictions[column].between(0, size - 1)]
        if len(outside):
            raise DataError(f"{column} = {outside.iloc[0]} is outside the views' {size} pixels", field=column)
    if len(predictions) != views * height * width:
        raise DataError(f"{len(predictions)} rows for {views} views of {height} x {width} pixels: every pixel needs "
                        "its row", field="x")


class RecordedRenders(Method[RecordedParams]):
    """The renders of one run of the dataset's folder (`renders/<run>/`), replayed for scoring."""

    def run(self, inputs: RenderSet, ctx: RunContext) -> np.ndarray:
        from harness import DataError

        if self.params.run not in inputs.renders:
            raise DataError(f"no run '{self.params.run}' under renders/; found {', '.join(sorted(inputs.renders))}",
                            file=inputs.path / "renders", field="params.run")
        return inputs.renders[self.params.run]
