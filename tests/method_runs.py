"""Running a method the way a worker does, for the families' tests: a one-thread CPU context and scored predictions."""
from __future__ import annotations

from typing import Any

from harness import Instance, RunContext


def context(seed: int = 0) -> RunContext:
    """The context a suite's `threads: 1, device: cpu` run gets."""
    return RunContext(seed=seed, device="cpu", threads=1)


def scored(task: Any, instance: Instance, method: Any, metrics: dict, seed: int = 0) -> dict[str, float]:
    """Run `method` on `instance` and score its predictions table with `metrics` ({key: Metric}), as the runner does."""
    table = task.predictions(instance, method.run(instance.inputs, context(seed)))
    return task.score(instance, table, metrics)
