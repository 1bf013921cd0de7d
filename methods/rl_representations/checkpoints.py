"""A training run's checkpoints, the rows of the control task's predictions table (torch-free: the task and
the planner import it)."""
from __future__ import annotations

from dataclasses import dataclass, field

RETURN_WINDOW = 10  # a checkpoint's return is the mean of this many last finished episodes


@dataclass
class Checkpoints:
    """One list per column of the predictions table (methods.rl_representations.task.ControlTask's schema)."""

    columns: dict[str, list[float]] = field(default_factory=dict)

    def add(self, **row: float) -> None:
        for name, value in row.items():
            self.columns.setdefault(name, []).append(float(value))
