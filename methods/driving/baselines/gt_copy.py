"""The logged future itself: L2 0, collision 0 (logged collisions are excluded), FCP 0."""
from __future__ import annotations

import numpy as np

from harness import Method, RunContext
from methods.driving.task import PlanningInputs


class GroundTruthCopy(Method):
    """Returns the oracle trajectory unchanged: the floor of every metric."""

    reads_hidden_labels = True  # a reference: it plans from the logged future

    def run(self, inputs: PlanningInputs, ctx: RunContext) -> np.ndarray:
        return np.array(inputs.oracle_trajectory, dtype=np.float64)
