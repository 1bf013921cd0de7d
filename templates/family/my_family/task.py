"""The family's contract: what a method sees, what it returns, and how that is scored.

Starter task: score unlabelled test points for the positive class, knowing labelled training points;
AUROC on the test points. Replace the inputs, the output check and the scoring with your problem's, and
keep the shape: a method sees only `Instance.inputs`; `predictions` makes one row per scored sample;
`score` reads that table alone, so stored and bring-your-own predictions can be re-scored later.
"""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from harness import DataError, Instance, Metric, Task
from harness.predictions_schema import Column, PredictionsSchema


@dataclass(frozen=True)
class Points:
    """What a loader returns: points with a 0/1 label each."""

    name: str
    x: np.ndarray  # (n, d) float
    y: np.ndarray  # (n,) int, 1 = positive


@dataclass(frozen=True)
class ScoringInputs:
    """What a method may see: the training points with their labels, the test points without."""

    x_train: np.ndarray
    y_train: np.ndarray
    x_test: np.ndarray


@dataclass(frozen=True)
class ScoringTruth:
    """What only scoring sees: the test points' row numbers in the dataset and their labels."""

    test_idx: np.ndarray
    test_y: np.ndarray


def held_out_fraction(split: Mapping[str, Any]) -> float:
    """The suite's `split: {test_fraction: f}` (default 0.5); a `ValueError` names a wrong key or value."""
    unknown = sorted(str(key) for key in set(split) - {"test_fraction"})
    if unknown:
        raise ValueError(f"unknown split key {unknown[0]!r}; allowed: test_fraction")
    fraction = split.get("test_fraction", 0.5)
    if isinstance(fraction, bool) or not isinstance(fraction, (int, float)) or not 0 < fraction < 1:
        raise ValueError(f"split key 'test_fraction' must be a fraction in (0, 1), got {fraction!r}")
    return float(fraction)


class PointScoring(Task):
    """Score test points for the positive class; a new random split per seed."""

    # One row per test point. The engine checks every table against this before `score` (a method's, and a
    # bring-your-own file's, naming its line and column), so `score` reads a table it can trust.
    predictions_schema = PredictionsSchema(
        (Column("sample", "integer", description="the point's row in the dataset"),
         Column("score", "number", description="higher: more likely positive")),
        sample="sample", other_samples_ok=True)  # a file may score every point of the dataset

    def test_samples(self, instance: Instance) -> np.ndarray:
        return instance.truth.test_idx

    def check_split(self, split: Mapping[str, Any]) -> None:
        held_out_fraction(split)

    def instance(self, data: Points, split: Mapping[str, Any], seed: int) -> Instance:
        order = np.random.default_rng(seed).permutation(data.y.size)
        n_test = round(held_out_fraction(split) * data.y.size)
        test, train = np.sort(order[:n_test]), np.sort(order[n_test:])
        for part, rows in (("train", train), ("test", test)):
            if np.unique(data.y[rows]).size < 2:
                raise DataError(f"dataset '{data.name}': the {part} part of seed {seed}'s split holds one class",
                                field="split", hint="Use more points, or a test_fraction nearer 0.5.")
        inputs = ScoringInputs(data.x[train], data.y[train], data.x[test])
        return Instance(inputs=inputs, truth=ScoringTruth(test, data.y[test]))

    def tiny_instance(self, seed: int) -> Instance:
        """Forty generated points, half held out: the conformance tests (tests/conformance) run every method
        of the family on it with its parameters' `tiny` values. The inputs carry no test labels, so the
        default `hide_test_labels` holds; a task whose inputs do carry some randomises them there."""
        from methods.my_family.data import gaussian_blobs  # data.py imports this module's dataclasses

        return self.instance(gaussian_blobs(num_points=40, seed=seed), {}, seed)

    def predictions(self, instance: Instance, output: Any) -> pd.DataFrame:
        scores = np.asarray(output, dtype=np.float64)
        test_idx = instance.truth.test_idx
        if scores.shape != test_idx.shape:
            raise ValueError(f"a method must return one score per test point, shape {test_idx.shape}, "
                             f"got shape {scores.shape}")
        return pd.DataFrame({"sample": test_idx, "score": scores})

    def score(self, instance: Instance, predictions: pd.DataFrame, metrics: Mapping[str, Metric]) -> dict[str, float]:
        truth: ScoringTruth = instance.truth
        # The table is checked: one row per test point. A bootstrap resample repeats some of them.
        scores = predictions.set_index("sample")["score"].loc[truth.test_idx].to_numpy(np.float64)
        return {key: metric(truth.test_y, scores) for key, metric in metrics.items()}

    def resample(self, instance: Instance, rng: np.random.Generator) -> Instance:
        """Test points drawn with replacement: the within-run bootstrap (`harness report --bootstrap N`)."""
        truth: ScoringTruth = instance.truth
        draw = rng.integers(0, truth.test_idx.size, truth.test_idx.size)
        return Instance(instance.inputs, ScoringTruth(truth.test_idx[draw], truth.test_y[draw]))

