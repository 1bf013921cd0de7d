"""The best single entity: every query goes to the one entity (the model or an expert) with the lowest
validation cost, loss + cost_scale * beta_j. No routing at all: what deferral must beat."""
from __future__ import annotations

import numpy as np

from harness import Method, RunContext
from methods.deferral.allocation import allocation, mean_part_loss
from methods.deferral.params import BestSingleParams
from methods.deferral.problem import Allocation, AllocationInputs


class BestSingle(Method[BestSingleParams]):
    def run(self, inputs: AllocationInputs, ctx: RunContext) -> Allocation:
        chosen = int(np.argmin(mean_part_loss(inputs, inputs.val) + self.params.cost_scale * inputs.costs))
        mask = np.zeros((inputs.test_x.shape[0], inputs.num_entities), dtype=bool)
        mask[:, chosen] = True
        return allocation([mask], 1.0)
