"""The contract `rl_representations.control`: train an agent on an environment for its step budget.

A method gets the `Environment` (methods.rl_representations.environments) and returns its `Checkpoints`:
every `every` steps the training return, the tau-dormant ratio and srank of the actor's and critic's
penultimate features, and the wall time. Predictions table (`ControlTask.predictions_schema`), one row per
checkpoint: `step`, `return`, `seconds`, `dormant_actor`, `dormant_critic`, `srank_actor`, `srank_critic`.
Scoring reads that table alone, so a user's own checkpoint table (a suite's `predictions:` file) scores the same.
Nothing is hidden from a method: the environment is the problem."""
from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pandas as pd

from harness import DataError, Instance, Metric, Task
from harness.contracts import reject_split_keys
from harness.predictions_schema import Column, PredictionsSchema
from methods.rl_representations.environments import load_classic
from methods.rl_representations.checkpoints import Checkpoints


class ControlTask(Task):
    """One training run per seed; the seed seeds the agent and the environment."""

    # One row per checkpoint, in any order (`score` sorts by step). The checkpoints are the run's own (a probe
    # fires as the step count passes each multiple of `every`; a logged run ends at its last episode), so the
    # task lists no test samples. A run that logs no representation diagnostics leaves them empty.
    predictions_schema = PredictionsSchema(
        (Column("step", "integer", description="environment steps taken"),
         Column("return", "number", description="mean return of the last 10 finished training episodes"),
         Column("seconds", "number", description="wall time since the start"),
         *(Column(f"{diagnostic}_{network}", "number", may_be_empty=True,
                  description=f"{diagnostic} of the {network}'s penultimate features")
           for diagnostic in ("dormant", "srank") for network in ("actor", "critic"))),
        sample="step")

    def check_split(self, split: Mapping[str, Any]) -> None:
        reject_split_keys(split, "rl_representations.control", "the step budget is a dataset argument")

    def instance(self, data: Any, split: Mapping[str, Any], seed: int) -> Instance:
        return Instance(inputs=data, truth=data)

    def tiny_instance(self, seed: int) -> Instance:
        """Pendulum (continuous actions, so PPO, SAC and TD3 all run) for 256 steps, a checkpoint every 128."""
        return self.instance(load_classic("Pendulum-v1", steps=256, every=128, probe_batch=64), {}, seed)

    def predictions(self, instance: Instance, output: Any) -> pd.DataFrame:
        if not isinstance(output, Checkpoints):
            raise ValueError(f"a control method returns Checkpoints, got {type(output).__name__}")
        return pd.DataFrame(output.columns)

    def score(self, instance: Instance, predictions: pd.DataFrame, metrics: Mapping[str, Metric]) -> dict[str, float]:
        if predictions.empty:
            raise DataError("the predictions table has no checkpoint", field="step",
                            hint="Give a row per checkpoint of the run.")
        checkpoints = predictions.sort_values("step")
        return {key: metric(checkpoints) for key, metric in metrics.items()}
