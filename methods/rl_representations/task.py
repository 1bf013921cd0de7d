"""The contract `rl_representations.control`: train an agent on an environment for its step budget.

A method gets the `Environment` (methods.rl_representations.environments) and returns its `Checkpoints`:
every `every` steps the training return, the tau-dormant ratio and srank of the actor's and critic's
penultimate features, and the wall time. Predictions table, one row per checkpoint: `step`, `return`,
`seconds`, `dormant_actor`, `dormant_critic`, `srank_actor`, `srank_critic`. Scoring reads that table alone.
Nothing is hidden from a method: the environment is the problem."""
from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd

from harness import Instance, Metric, Task
from harness.contracts import reject_split_keys
from methods.rl_representations.environments import load_classic
from methods.rl_representations.checkpoints import Checkpoints

COLUMNS = ("step", "return", "seconds", "dormant_actor", "dormant_critic", "srank_actor", "srank_critic")


class ControlTask(Task):
    """One training run per seed; the seed seeds the agent and the environment."""

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
        missing = [name for name in COLUMNS if name not in output.columns]
        if missing or not output.columns["step"]:
            raise ValueError(f"the checkpoints lack {', '.join(missing) or 'any row'}")
        table = pd.DataFrame({name: output.columns[name] for name in COLUMNS})
        if not np.all(np.diff(table["step"]) > 0):
            raise ValueError("checkpoint steps must strictly increase")
        return table

    def score(self, instance: Instance, predictions: pd.DataFrame, metrics: Mapping[str, Metric]) -> dict[str, float]:
        return {key: metric(predictions) for key, metric in metrics.items()}
