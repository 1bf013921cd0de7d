"""The contract `rl_representations.nonstationary`: the paper's non-stationary classification diagnostic
(CIFAR-10 with labels reshuffled every 20 epochs) on scikit-learn's digits. Each phase assigns the images a
fresh random labelling (a permutation of the true labels across images), so every phase is a new
memorisation problem and a network that loses plasticity fits later phases worse.

Inputs: the standardised images and one label vector per phase, drawn per seed. Predictions table
(`NonStationaryTask.predictions_schema`), one row per epoch (1, 2, ... phases x epochs_per_phase): `epoch`,
`phase`, `accuracy` (training accuracy on the current labelling, %), `dormant` and `srank` of the penultimate
features on all images."""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from harness import DataError, Instance, Metric, Task
from harness.contracts import reject_split_keys
from harness.predictions_schema import Column, PredictionsSchema


@dataclass(frozen=True)
class LabelPhases:
    """A loader's result and what a method sees: images, and how often and how many times labels reshuffle."""

    x: np.ndarray
    y: np.ndarray
    phases: int
    epochs_per_phase: int
    labels: np.ndarray | None = None  # (phases, samples), drawn by the task per seed

    @property
    def num_classes(self) -> int:
        return int(self.y.max()) + 1


def load_digits(samples: int = 512, phases: int = 8, epochs_per_phase: int = 20) -> LabelPhases:
    """scikit-learn's bundled 8 x 8 digits (nothing downloads), the first `samples` of them, standardised."""
    from sklearn.datasets import load_digits as sklearn_digits

    if phases < 1 or epochs_per_phase < 1:
        raise DataError("phases and epochs_per_phase must be >= 1", field="phases")
    x, y = sklearn_digits(return_X_y=True)
    if not 10 <= samples <= len(y):
        raise DataError(f"samples must lie in [10, {len(y)}], got {samples}", field="samples")
    x = x[:samples].astype(np.float32)
    x = (x - x.mean(axis=0)) / np.where(x.std(axis=0) > 0, x.std(axis=0), 1.0)
    return LabelPhases(x, y[:samples].astype(np.int64), phases, epochs_per_phase)


class NonStationaryTask(Task):
    # One row per epoch, every epoch of every phase (`test_samples`), in any order (`score` sorts by epoch).
    predictions_schema = PredictionsSchema(
        (Column("epoch", "integer", description="from 1"),
         Column("phase", "integer", description="the label phase, from 0"),
         Column("accuracy", "number", description="training accuracy on the phase's labels, %"),
         Column("dormant", "number", description="tau-dormant share of the penultimate units"),
         Column("srank", "number", description="srank of the penultimate features")),
        sample="epoch")

    def test_samples(self, instance: Instance) -> range:
        data: LabelPhases = instance.truth
        return range(1, data.phases * data.epochs_per_phase + 1)

    def check_split(self, split: Mapping[str, Any]) -> None:
        reject_split_keys(split, "rl_representations.nonstationary", "phases are dataset arguments")

    def instance(self, data: LabelPhases, split: Mapping[str, Any], seed: int) -> Instance:
        rng = np.random.default_rng(seed)
        labels = np.stack([data.y if phase == 0 else rng.permutation(data.y) for phase in range(data.phases)])
        phased = LabelPhases(data.x, data.y, data.phases, data.epochs_per_phase, labels)
        return Instance(inputs=phased, truth=phased)

    def tiny_instance(self, seed: int) -> Instance:
        """60 digits, 2 phases of 3 epochs."""
        return self.instance(load_digits(samples=60, phases=2, epochs_per_phase=3), {}, seed)

    def predictions(self, instance: Instance, output: Any) -> pd.DataFrame:
        return pd.DataFrame(output)

    def score(self, instance: Instance, predictions: pd.DataFrame, metrics: Mapping[str, Metric]) -> dict[str, float]:
        epochs = predictions.sort_values("epoch")
        return {key: metric(epochs) for key, metric in metrics.items()}
